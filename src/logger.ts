import { destination, pino, type DestinationStream, type Logger } from "pino";
import { currentRequest } from "./request-context.js";

export type { Logger };

const REDACTED = "[redacted]";

/** Query parameters whose value is a credential, by name (case-insensitive). */
const SECRET_PARAMETER =
  /^(?:api[-_]?key|apikey|key|token|access[-_]?token|auth|authorization|secret|client[-_]?secret|password|passwd|pass|sig|signature|x-api-key|private[-_]?key)$/i;
/** A URL as it appears in a log line (also inside a JSON string or an error's message). */
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s"'<>\\]+)/gi;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A path segment that looks like a key (RPC providers put theirs in the path: https://host/v2/KEY):
 * 20 or more characters of letters, digits, `-` and `_` mixing letters and digits, or 32+ hex digits.
 * A UUID (a listing id) is not one.
 */
function looksLikeKey(segment: string): boolean {
  if (UUID.test(segment)) return false;
  if (/^(0x)?[0-9a-f]{32,}$/i.test(segment)) return true;
  return segment.length >= 20 && /^[A-Za-z0-9_-]+$/.test(segment) && /[0-9]/.test(segment) && /[A-Za-z]/.test(segment);
}

function redactUrl(scheme: string, rest: string): string {
  // userinfo: everything before the last `@` of the authority.
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  let tail = authorityEnd === -1 ? "" : rest.slice(authorityEnd);
  const at = authority.lastIndexOf("@");
  const host = at === -1 ? authority : `${REDACTED}@${authority.slice(at + 1)}`;
  const queryAt = tail.search(/[?#]/);
  const path = queryAt === -1 ? tail : tail.slice(0, queryAt);
  const query = queryAt === -1 ? "" : tail.slice(queryAt);
  tail =
    path
      .split("/")
      .map((segment) => (looksLikeKey(segment) ? REDACTED : segment))
      .join("/") +
    query.replace(/([?&#;])([^=&#;]*)=([^&#;]*)/g, (whole, separator: string, name: string, value: string) =>
      SECRET_PARAMETER.test(decodeSafely(name)) || looksLikeKey(value) ? `${separator}${name}=${REDACTED}` : whole,
    );
  return `${scheme}${host}${tail}`;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Every URL in `text` without its secrets: user and password, key-like path segments, and the
 * values of credential query parameters (or key-like ones). Applied to each whole log line, so it
 * reaches messages, fields and the messages and stacks of errors (viem's carry the node's URL).
 */
export function redactSecrets(text: string): string {
  return text.replace(URL_IN_TEXT, (_, scheme: string, rest: string) => redactUrl(scheme, rest));
}

/** A destination that writes every line through {@link redactSecrets}. */
function redacting(to: DestinationStream): DestinationStream {
  const stream = to as DestinationStream & { flush?: (cb?: (error?: Error) => void) => void; flushSync?: () => void };
  return {
    write: (line: string) => stream.write(redactSecrets(line)),
    ...(stream.flush && { flush: stream.flush.bind(stream) }),
    ...(stream.flushSync && { flushSync: stream.flushSync.bind(stream) }),
  } as DestinationStream;
}

/**
 * Structured JSON logs on stdout, written synchronously: the service logs little at info, and a
 * synchronous write cannot be lost at exit or overtaken by the exit's own flush (with pino's
 * asynchronous default, "stopped" was seen before "shutting down"). No line carries a URL's
 * credentials (see {@link redactSecrets}).
 */
export function createLogger(level: string, to: DestinationStream = destination({ dest: 1, sync: true })): Logger {
  return pino(
    {
      level,
      base: { service: "x402-marketplace" },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Every line written while a request is answered (its payment, its probe) names the request.
      mixin: () => {
        const request = currentRequest();
        return request ? { requestId: request.id } : {};
      },
    },
    redacting(to),
  );
}

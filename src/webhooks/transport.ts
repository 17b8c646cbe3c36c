// One POST of a signed payload to a subscriber's endpoint, under the seller probe's address policy:
// the host is resolved and judged once and the connection pinned to that address, no redirect is
// followed, one deadline covers the whole exchange, and at most a few KB of the answer are read.
import type { Resolver } from "../probe/destination.js";
import { resolveDestination } from "../probe/destination.js";
import { pinnedRequest } from "../probe/pinned-request.js";

const USER_AGENT = "x402-marketplace-webhooks/1 (+Standard Webhooks)";
/** The answer is read only to end the exchange cleanly; nothing of it is kept but its status. */
const MAX_ANSWER_BYTES = 4096;

export interface TransportOptions {
  timeoutMs: number;
  /** Test and local-development setting: loopback endpoints, over http. */
  allowLoopback: boolean;
  resolve?: Resolver;
}

/** What an attempt came to: delivered (2xx), or why not, as a code safe to show the subscriber. */
export type Attempt = { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

/** Whether a URL may be subscribed at all (before any DNS): https, or http to loopback where allowed. */
export function endpointProblem(raw: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not an absolute URL";
  }
  if (url.username || url.password) return "must not carry credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && allowLoopback) return null;
  return "must be https";
}

/**
 * POSTs `payload` with `headers`: delivered on a 2xx (its body returned, for the verification echo),
 * a redirect or any other status is a failure with its code.
 */
export async function post(
  rawUrl: string,
  payload: string,
  headers: Record<string, string>,
  options: TransportOptions,
): Promise<Attempt & { body?: string }> {
  const url = new URL(rawUrl);
  const destination = await resolveDestination(url, { ...options, allowedWhat: "sent webhooks" });
  if ("code" in destination) return { ok: false, statusCode: null, error: destination.code };
  if (url.protocol === "http:" && destination.range !== "loopback")
    return { ok: false, statusCode: null, error: "not_https" };
  const response = await pinnedRequest({
    url,
    method: "POST",
    address: destination.address,
    family: destination.family,
    timeoutMs: options.timeoutMs,
    maxBytes: MAX_ANSWER_BYTES,
    insecureTls: destination.range === "loopback",
    userAgent: USER_AGENT,
    body: payload,
    headers,
  });
  if (!response.ok) return { ok: false, statusCode: null, error: response.reason };
  if (response.status >= 200 && response.status < 300)
    return { ok: true, statusCode: response.status, body: response.truncated ? "" : response.body.toString("utf8") };
  if (response.status >= 300 && response.status < 400)
    return { ok: false, statusCode: response.status, error: "redirect_not_followed" };
  return { ok: false, statusCode: response.status, error: `http_${response.status}` };
}

// One HTTP(S) request to an address checked beforehand: the connection goes to that address (DNS is
// not asked again), while SNI, certificate and Host stay those of the URL's host name. No redirects
// are followed (node's request never does), the whole exchange has one deadline, and at most
// `maxBytes` of the body are read.
import type { IncomingHttpHeaders } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { createSecureContext, type SecureContext } from "node:tls";

export interface PinnedRequestOptions {
  url: URL;
  method: "GET" | "POST";
  address: string;
  family: 4 | 6;
  timeoutMs: number;
  maxBytes: number;
  /** Accept any certificate: loopback sellers in tests and local development only. */
  insecureTls: boolean;
  userAgent: string;
  /** The body of a POST (default "{}", what a seller probe sends) and extra headers (a webhook's signature). */
  body?: string;
  headers?: Record<string, string>;
}

export type PinnedResponse =
  | { ok: true; status: number; headers: IncomingHttpHeaders; body: Buffer; truncated: boolean }
  | { ok: false; reason: "timeout" | "unreachable" | "tls_error"; detail: string };

class DeadlineError extends Error {}

/**
 * One TLS context (the default root certificates) for every connection: Node builds a new one per
 * connection otherwise, about 0.6 ms of CPU of a probe's 2.2 (a loopback TLS server, 2026-11-28).
 */
let tlsContext: SecureContext | undefined;

function describeFailure(error: NodeJS.ErrnoException, timeoutMs: number): PinnedResponse {
  if (error instanceof DeadlineError) return { ok: false, reason: "timeout", detail: `no complete answer within ${timeoutMs} ms` };
  const code = error.code ?? "";
  if (/^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO)/.test(code) || /certificate|TLS|SSL/i.test(error.message)) {
    return { ok: false, reason: "tls_error", detail: `TLS failed: ${code || error.message}` };
  }
  return { ok: false, reason: "unreachable", detail: `${code || "connection failed"}: ${error.message}` };
}

export function pinnedRequest(options: PinnedRequestOptions): Promise<PinnedResponse> {
  const { url, method, address, family, timeoutMs, maxBytes } = options;
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    if (lookupOptions.all) (callback as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const body = method === "POST" ? (options.body ?? "{}") : undefined;
  return new Promise<PinnedResponse>((resolve) => {
    try {
      send(resolve);
    } catch (error) {
      resolve(describeFailure(error as NodeJS.ErrnoException, timeoutMs));
    }
  });

  function send(resolve: (response: PinnedResponse) => void): void {
    const request = (url.protocol === "https:" ? httpsRequest : httpRequest)({
      host: hostname,
      port: url.port || (url.protocol === "https:" ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method,
      headers: {
        host: url.host,
        accept: "application/json",
        "user-agent": options.userAgent,
        ...options.headers,
        ...(body && { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }),
      },
      lookup: pinned,
      ...(isIP(hostname) === 0 && { servername: hostname }),
      rejectUnauthorized: !options.insecureTls,
      ...(url.protocol === "https:" && { secureContext: (tlsContext ??= createSecureContext()) }),
      agent: false,
    });
    const deadline = setTimeout(() => request.destroy(new DeadlineError()), timeoutMs);
    const finish = (result: PinnedResponse) => {
      clearTimeout(deadline);
      resolve(result);
    };
    request.on("error", (error) => finish(describeFailure(error, timeoutMs)));
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (truncated: boolean) => {
        finish({ ok: true, status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks), truncated });
        request.destroy();
      };
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return done(true);
        chunks.push(chunk);
      });
      response.on("end", () => done(false));
      response.on("error", (error) => finish(describeFailure(error, timeoutMs)));
    });
    request.end(body);
  }
}

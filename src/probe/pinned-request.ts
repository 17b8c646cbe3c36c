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
  /**
   * "parts": the body as blocks of 1 MiB, each its own memory, and `body` empty. Joining 64 MiB of
   * chunks held the event loop for over 100 ms; blocks are filled as the chunks arrive, and can be
   * moved to a worker thread, which joins them.
   */
  collect?: "buffer" | "parts";
  /** The body of a POST (default "{}", what a seller probe sends) and extra headers (a webhook's signature). */
  body?: string;
  headers?: Record<string, string>;
}

export type PinnedResponse =
  | { ok: true; status: number; headers: IncomingHttpHeaders; body: Buffer; parts: Buffer[]; truncated: boolean }
  | { ok: false; reason: "timeout" | "unreachable" | "tls_error"; detail: string };

class DeadlineError extends Error {}

const BLOCK_BYTES = 1024 * 1024;

/** A body copied into blocks of 1 MiB as it arrives, each block its own ArrayBuffer. */
class BlockWriter {
  private readonly blocks: Buffer[] = [];
  private used = BLOCK_BYTES;

  write(chunk: Buffer): void {
    for (let at = 0; at < chunk.length;) {
      if (this.used === BLOCK_BYTES) {
        this.blocks.push(Buffer.allocUnsafeSlow(BLOCK_BYTES));
        this.used = 0;
      }
      const copied = chunk.copy(this.blocks.at(-1)!, this.used, at);
      this.used += copied;
      at += copied;
    }
  }

  filled(): Buffer[] {
    if (this.blocks.length > 0 && this.used < BLOCK_BYTES)
      this.blocks[this.blocks.length - 1] = this.blocks.at(-1)!.subarray(0, this.used);
    return this.blocks;
  }
}

/**
 * One TLS context (the default root certificates) for every connection: Node builds a new one per
 * connection otherwise, about 0.6 ms of CPU of a probe's 2.2 (a loopback TLS server, 2026-11-28).
 */
let tlsContext: SecureContext | undefined;

function describeFailure(error: NodeJS.ErrnoException, timeoutMs: number): PinnedResponse {
  if (error instanceof DeadlineError)
    return { ok: false, reason: "timeout", detail: `no complete answer within ${timeoutMs} ms` };
  const code = error.code ?? "";
  if (
    /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO)/.test(code) ||
    /certificate|TLS|SSL/i.test(error.message)
  ) {
    return { ok: false, reason: "tls_error", detail: `TLS failed: ${code || error.message}` };
  }
  return { ok: false, reason: "unreachable", detail: `${code || "connection failed"}: ${error.message}` };
}

export function pinnedRequest(options: PinnedRequestOptions): Promise<PinnedResponse> {
  const { url, method, address, family, timeoutMs, maxBytes } = options;
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    if (lookupOptions.all)
      (callback as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [
        { address, family },
      ]);
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
      const blocks = new BlockWriter();
      let size = 0;
      const done = (truncated: boolean) => {
        const parts = options.collect === "parts";
        finish({
          ok: true,
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: parts ? Buffer.alloc(0) : Buffer.concat(chunks),
          parts: parts ? blocks.filled() : [],
          truncated,
        });
        request.destroy();
      };
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return done(true);
        if (options.collect === "parts") blocks.write(chunk);
        else chunks.push(chunk);
      });
      response.on("end", () => done(false));
      response.on("error", (error) => finish(describeFailure(error, timeoutMs)));
      // A declared length over the cap is refused before a byte of the body is read.
      if (Number(response.headers["content-length"] ?? 0) > maxBytes) return done(true);
    });
    request.end(body);
  }
}

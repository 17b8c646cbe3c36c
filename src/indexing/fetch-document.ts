// One JSON document from another host, read as the seller probe reads: the host resolved once and
// every address judged (no private, loopback or metadata address unless loopback is allowed for
// tests), the connection pinned to it, no redirect followed, one deadline for the whole exchange and
// a byte cap; and politely, with a gap between two requests to one host.
import { resolveDestination, type Resolver } from "../probe/destination.js";
import { pinnedRequest, type PinnedResponse } from "../probe/pinned-request.js";

const USER_AGENT = "x402-marketplace-indexer/1 (+discovery crawler)";

export type FetchProblem =
  | "host_unresolvable"
  | "address_not_allowed"
  | "not_https"
  | "timeout"
  | "unreachable"
  | "tls_error"
  | "redirect_not_followed"
  | "http_error"
  | "too_large"
  | "not_json"
  | "not_modified";

export type Fetched =
  { ok: true; json: unknown; bytes: number } | { ok: false; problem: FetchProblem; status?: number };

/** What identifies a document's version: its ETag or Last-Modified, as the server sent them. */
export interface Validators {
  etag?: string | undefined;
  lastModified?: string | undefined;
}

/** A large document's bytes in blocks of 1 MiB (src/probe/pinned-request.ts), each movable to a worker thread. */
export type FetchedBytes =
  { ok: true; parts: Buffer[]; validators: Validators } | { ok: false; problem: FetchProblem; status?: number };

export interface FetchOptions {
  timeoutMs: number;
  maxBytes: number;
  allowLoopback: boolean;
  hostGapMs: number;
  resolve?: Resolver;
}

/** A gap between two requests to one host, across every source a crawl reads. */
export class HostGap {
  private readonly next = new Map<string, number>();

  constructor(private readonly gapMs: number) {}

  async wait(host: string, signal: AbortSignal): Promise<void> {
    const now = Date.now();
    const at = this.next.get(host) ?? 0;
    this.next.set(host, Math.max(now, at) + this.gapMs);
    if (at <= now) return;
    if (signal.aborted) return;
    // The abort listener goes when the timer fires: one crawl's signal sees thousands of waits.
    await new Promise<void>((resolve) => {
      const stop = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", stop);
        resolve();
      }, at - now);
      signal.addEventListener("abort", stop, { once: true });
    });
  }
}

export async function fetchJson(url: URL, options: FetchOptions, gap: HostGap, signal: AbortSignal): Promise<Fetched> {
  const fetched = await fetchDocument(url, options, gap, signal, "buffer");
  if (!fetched.ok) return fetched;
  try {
    return {
      ok: true,
      json: JSON.parse(fetched.response.body.toString("utf8")) as unknown,
      bytes: fetched.response.body.length,
    };
  } catch {
    return { ok: false, problem: "not_json" };
  }
}

/**
 * A large document's bytes, unparsed (a snapshot is parsed off the event loop). With `unless`, a
 * conditional GET: a 304 is `not_modified`, and nothing is read.
 */
export async function fetchBytes(
  url: URL,
  options: FetchOptions,
  gap: HostGap,
  signal: AbortSignal,
  unless?: Validators,
): Promise<FetchedBytes> {
  const fetched = await fetchDocument(url, options, gap, signal, "parts", unless);
  if (!fetched.ok) return fetched;
  const { headers, parts } = fetched.response;
  const header = (name: string) => {
    const value = headers[name];
    return typeof value === "string" && value.length <= 256 ? value : undefined;
  };
  return { ok: true, parts, validators: { etag: header("etag"), lastModified: header("last-modified") } };
}

async function fetchDocument(
  url: URL,
  options: FetchOptions,
  gap: HostGap,
  signal: AbortSignal,
  collect: "buffer" | "parts",
  unless?: Validators,
): Promise<
  { ok: true; response: Extract<PinnedResponse, { ok: true }> } | { ok: false; problem: FetchProblem; status?: number }
> {
  await gap.wait(url.host, signal);
  const destination = await resolveDestination(url, { ...options, allowedWhat: "crawled" });
  if ("code" in destination) return { ok: false, problem: destination.code };
  if (url.protocol !== "https:" && !(url.protocol === "http:" && destination.range === "loopback"))
    return { ok: false, problem: "not_https" };
  const response = await pinnedRequest({
    url,
    method: "GET",
    address: destination.address,
    family: destination.family,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    insecureTls: destination.range === "loopback",
    userAgent: USER_AGENT,
    collect,
    headers: {
      accept: "application/json",
      ...(unless?.etag && { "if-none-match": unless.etag }),
      ...(unless?.lastModified && { "if-modified-since": unless.lastModified }),
    },
  });
  if (!response.ok) return { ok: false, problem: response.reason };
  if (response.status === 304 && unless) return { ok: false, problem: "not_modified", status: 304 };
  if (response.status >= 300 && response.status < 400)
    return { ok: false, problem: "redirect_not_followed", status: response.status };
  if (response.status < 200 || response.status >= 300)
    return { ok: false, problem: "http_error", status: response.status };
  if (response.truncated) return { ok: false, problem: "too_large" };
  return { ok: true, response };
}

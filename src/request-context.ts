// What the service knows about the request being answered, wherever the work runs: its id (for
// log lines of payments and probes made on its behalf) and, once routed, its operation. The entry
// (src/http/entry.ts) opens one per request; the logger (src/logger.ts) stamps every line written
// inside it with `requestId`.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

export interface RequestContext {
  /** The incoming X-Request-Id when it is sane, else a generated UUID; sent back as X-Request-Id. */
  readonly id: string;
  /** The canonical operation, once the router matched one. */
  operation?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** An id a client or proxy sent that is safe to log and echo: short, printable, no spaces. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && SANE_REQUEST_ID.test(value) ? value : randomUUID();
}

/** Runs `work` inside a request context: everything it starts, awaited or not, sees it. */
export function runInRequest<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/** The context of the request being answered, if any (none in timers and start-up work). */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

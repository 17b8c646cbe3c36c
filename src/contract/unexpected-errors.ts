// Errors no handler expected: what the client is told, and how often the operator is told.
import type { Logger } from "../logger.js";
import { HttpError } from "./errors.js";

/** Prisma, its driver adapters, better-sqlite3 and pg (the catalog readers): the database is down, busy, or refused a statement. */
export function isStorageError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return (
    typeof name === "string" &&
    (/^PrismaClient(KnownRequest|UnknownRequest|Initialization|RustPanic)Error$/.test(name) ||
      name === "DriverAdapterError" ||
      name === "SqliteError" ||
      name === "CatalogReadError")
  );
}

/** The JSON answer for an error that is not an HttpError: never its message, which may carry SQL or URLs. */
export function replyFor(error: unknown): HttpError {
  if (isStorageError(error)) {
    return new HttpError(503, "storage_unavailable", "The catalog database did not answer; retry shortly.", undefined, {
      "Retry-After": "5",
    });
  }
  return new HttpError(500, "internal_error", "The server failed to answer this request; it has been logged.");
}

const WINDOW_MS = 60_000;
const MAX_KINDS = 64;

interface Seen {
  loggedAt: number;
  suppressed: number;
}

const seenByLogger = new WeakMap<Logger, Map<string, Seen>>();

type Coded = { name?: unknown; code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } };

const shown = (code: unknown) => (typeof code === "string" || typeof code === "number" ? String(code) : "");

/**
 * Class and code; a storage failure by the database's own code (SQLSTATE, SQLite's), since one fault
 * reaches the handlers wrapped differently: Prisma's P2010/P2021 and the catalog reader's error for
 * the same missing table.
 */
function kindOf(error: unknown): string {
  const { name, code, meta } = (error ?? {}) as Coded;
  if (isStorageError(error)) {
    const databaseCode = shown(meta?.driverAdapterError?.cause?.originalCode) || shown(code);
    if (databaseCode) return `storage:${databaseCode}`;
  }
  return `${typeof name === "string" ? name : typeof error}:${shown(code)}`;
}

/**
 * Logs an unexpected error with its stack at most once a minute per kind (class and code), with
 * the count of those left out since: a failing database or a request that trips a bug on every
 * call must not write a stack per request.
 */
export function logUnexpected(
  logger: Logger,
  error: unknown,
  context: Record<string, unknown>,
  message: string,
  now = Date.now(),
): void {
  const seen = seenByLogger.get(logger) ?? new Map<string, Seen>();
  seenByLogger.set(logger, seen);
  const kind = seen.size < MAX_KINDS ? kindOf(error) : "other";
  const last = seen.get(kind);
  if (last && now - last.loggedAt < WINDOW_MS) {
    last.suppressed++;
    logger.debug({ ...context, kind }, `${message} (repeat)`);
    return;
  }
  seen.set(kind, { loggedAt: now, suppressed: 0 });
  logger.error(
    { err: error, ...context, kind, ...(last?.suppressed ? { suppressedSinceLast: last.suppressed } : {}) },
    message,
  );
}

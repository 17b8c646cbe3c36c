// Readiness (GET /readyz): this instance should receive traffic when its database answers, every
// migration this build ships is applied, and its payment backend (the facilitator, the chain node)
// answers. Each check is bounded; a failure names its reason without hosts, URLs or keys.
import { readdir } from "node:fs/promises";
import type { components } from "../generated/openapi.js";
import { metrics, secondsSince } from "./metrics.js";
import type { Payments } from "./payments/setup.js";
import type { Database } from "./storage/database.js";
import { migrationsDir } from "./storage/migrate.js";

type Readiness = components["schemas"]["Readiness"];
type Check = components["schemas"]["ReadinessCheck"];

/** Bound on each check: a load balancer's probe must not hang on a database that stopped answering. */
export const READINESS_TIMEOUT_MS = 2_000;

class CheckFailed extends Error {}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckFailed(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** A reason safe to show: our own message, or the error's code (ECONNREFUSED, P1001), never its text. */
function reasonOf(error: unknown, what: string): string {
  if (error instanceof CheckFailed) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[A-Za-z0-9_]{2,40}$/.test(code) ? `${what} failed (${code})` : `${what} failed`;
}

async function timed(work: () => Promise<string | undefined>, what: string): Promise<Check> {
  const started = process.hrtime.bigint();
  const ms = () => Math.round(secondsSince(started) * 1e6) / 1e3;
  try {
    const detail = await withDeadline(work(), READINESS_TIMEOUT_MS, what);
    return { ok: true, ms: ms(), ...(detail && { detail }) };
  } catch (error) {
    return { ok: false, ms: ms(), detail: reasonOf(error, what) };
  }
}

export function createReadiness(deps: { database: Database; payments: Payments }): () => Promise<Readiness> {
  const { database, payments } = deps;
  let shipped: Promise<string[]> | undefined;
  const shippedMigrations = () =>
    (shipped ??= readdir(migrationsDir(database.kind), { withFileTypes: true }).then((entries) =>
      entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name),
    ));

  const ping = async (): Promise<undefined> => {
    const started = process.hrtime.bigint();
    await database.exclusive(() => database.prisma.$queryRawUnsafe("SELECT 1"));
    metrics.databaseDuration.observe({ database: database.kind }, secondsSince(started));
    return undefined;
  };
  const migrations = async (): Promise<undefined> => {
    const rows = await database.exclusive(() =>
      database.prisma.$queryRawUnsafe<Array<{ migration_name: string }>>(
        'SELECT "migration_name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL',
      ),
    );
    const applied = new Set(rows.map((row) => row.migration_name));
    const missing = (await shippedMigrations()).filter((name) => !applied.has(name));
    if (missing.length > 0) throw new CheckFailed(`${missing.length} migration(s) not applied: ${missing.join(", ")}`);
    return undefined;
  };
  const backend = async (): Promise<string | undefined> => {
    if (!payments.checkBackend) return "not checked (no backend check configured)";
    await payments.checkBackend();
    return undefined;
  };

  return async () => {
    const [databaseCheck, migrationsCheck, paymentsCheck] = await Promise.all([
      timed(ping, "the database"),
      timed(migrations, "the migrations check"),
      timed(backend, "the payment backend"),
    ]);
    const checks = { database: databaseCheck, migrations: migrationsCheck, payments: paymentsCheck };
    return { status: Object.values(checks).every((check) => check.ok) ? "ready" : "not_ready", checks };
  };
}

// /readyz against a PostgreSQL database that goes away and comes back: its own database, closed to
// connections (ALLOW_CONNECTIONS false) with every session ended, then opened again. The service
// must say 503 while it is gone, keep answering /livez, and say 200 again without a restart.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";

const baseUrl = process.env.TEST_POSTGRES_URL;

describe.skipIf(!baseUrl)("/readyz on PostgreSQL", () => {
  const name = `ops_ready_${randomBytes(5).toString("hex")}`;
  let admin: pg.Client;
  let server: TestServer;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(baseUrl!);
    url.pathname = `/${name}`;
    server = await startTestServer({ DATABASE_URL: url.toString() });
  });

  afterAll(async () => {
    await server?.close();
    await admin?.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    await admin?.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin?.end();
  });

  const readiness = async () => {
    const response = await server.fetch("/readyz");
    return {
      status: response.status,
      body: (await response.json()) as { status: string; checks: Record<string, { ok: boolean; detail?: string }> },
    };
  };

  async function eventually(status: number, withinMs: number) {
    const deadline = Date.now() + withinMs;
    let last = await readiness();
    while (last.status !== status && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      last = await readiness();
    }
    return last;
  }

  it("is 200 while the database answers, 503 while it is gone, and 200 again when it returns", async () => {
    expect((await readiness()).status).toBe(200);

    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [name],
    );
    const gone = await eventually(503, 5_000);
    expect(gone.status).toBe(503);
    expect(gone.body).toMatchObject({ status: "not_ready", checks: { database: { ok: false } } });
    expect(gone.body.checks.database!.detail).not.toContain("127.0.0.1");
    expect((await server.fetch("/livez")).status).toBe(200);

    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    const back = await eventually(200, 10_000);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ status: "ready", checks: { database: { ok: true }, migrations: { ok: true } } });
  });
});

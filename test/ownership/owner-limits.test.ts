// The CPU budget of the owner routes: a per-client limit checked before any body or signature is
// read (shared through Redis when configured), and a bounded queue for signature recovery, which
// runs in a worker pool, off the request thread.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";

const REDIS_URL = process.env.TEST_REDIS_URL;

const junk = () =>
  JSON.stringify({
    nonce: `0x${randomBytes(32).toString("hex")}`,
    deadline: Math.floor(Date.now() / 1000) + 300,
    signature: `0x${randomBytes(65).toString("hex")}`,
  });

async function seedIds(server: TestServer): Promise<string[]> {
  const body = (await (await server.fetch("/discovery/resources?includeSeed=true")).json()) as {
    items: Array<{ metadata: { listingId: string } }>;
  };
  return body.items.map((item) => item.metadata.listingId);
}

async function claim(
  server: TestServer,
  id: string,
  body = junk(),
): Promise<{ status: number; error: string; retryAfter: string | null }> {
  const response = await server.fetch(`/listings/${id}/claim`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  return {
    status: response.status,
    error: ((await response.json()) as { error: string }).error,
    retryAfter: response.headers.get("retry-after"),
  };
}

describe("owner routes' CPU budget", { timeout: 120_000 }, () => {
  it("refuses a client over OWNER_RATE_PER_CLIENT with 429 before reading its body or its signature", async () => {
    const server = await startTestServer({ LOAD_SEED: "true", OWNER_RATE_PER_CLIENT: "3" });
    try {
      const [id] = await seedIds(server);
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await claim(server, id!));
      expect(answers.map((answer) => answer.error)).toEqual(["not_owner", "not_owner", "not_owner"]);
      // The budget refills (3 a minute): on a slow machine a token may come back between two
      // requests, so each check comes right after the budget is spent again.
      const spend = async () => {
        for (let i = 0; i < 5 && (await claim(server, id!)).status !== 429; i++);
      };
      // Over the limit: refused whatever the body (even one that is not JSON), on every owner route.
      await spend();
      const over = await claim(server, id!, "not json at all");
      expect(over).toMatchObject({ status: 429, error: "rate_limited" });
      expect(Number(over.retryAfter)).toBeGreaterThan(0);
      for (const [method, path] of [
        ["GET", `/listings/${id}/sign?action=claim`],
        ["PATCH", `/listings/${id}`],
        ["DELETE", `/listings/${id}`],
        ["POST", `/listings/${id}/refresh`],
      ] as const) {
        await spend();
        const response = await server.fetch(path, {
          method,
          ...(method !== "GET" && { headers: { "content-type": "application/json" }, body: junk() }),
        });
        expect(response.status, `${method} ${path}`).toBe(429);
      }
      // Catalog reads are not owner requests.
      expect((await server.fetch("/discovery/resources")).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("answers 503 busy with Retry-After once the signature queue is full, never 500, and recovers", async () => {
    const server = await startTestServer({
      LOAD_SEED: "true",
      OWNER_RATE_PER_CLIENT: "100000",
      WORKER_THREADS: "1",
      WORKER_MAX_QUEUE: "1",
    });
    try {
      const ids = await seedIds(server);
      // Warm the worker thread, then send a burst far beyond one recovery at a time plus a queue of one.
      expect((await claim(server, ids[0]!)).error).toBe("not_owner");
      const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => claim(server, ids[i % ids.length]!)));
      const busy = burst.filter((answer) => answer.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      for (const answer of busy) expect(answer).toMatchObject({ error: "busy", retryAfter: "1" });
      expect(burst.every((answer) => answer.status === 503 || answer.error === "not_owner")).toBe(true);
      expect((await claim(server, ids[0]!)).error).toBe("not_owner");
    } finally {
      await server.close();
    }
  });

  it.skipIf(!REDIS_URL)("with REDIS_URL, two instances share one client's owner budget", async () => {
    const env = {
      LOAD_SEED: "true",
      OWNER_RATE_PER_CLIENT: "4",
      REDIS_URL: REDIS_URL!,
      REDIS_KEY_PREFIX: `x402-test-${randomBytes(6).toString("hex")}:`,
    };
    const instances = [await startTestServer(env), await startTestServer(env)];
    try {
      const id = (await seedIds(instances[0]!))[0]!;
      const statuses = [];
      for (let i = 0; i < 8; i++) statuses.push((await claim(instances[i % 2]!, id)).status);
      expect(statuses.filter((status) => status === 403)).toHaveLength(4);
      expect(statuses.filter((status) => status === 429)).toHaveLength(4);
    } finally {
      for (const instance of instances) await instance.close();
    }
  });
});

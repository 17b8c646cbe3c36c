// Starting to track many sellers (a first pass over a large catalog) writes them in batches; on SQLite
// each statement runs synchronously under its promise, so without a turn of the event loop between
// batches no request was served until all were written (10 s at 100k sellers).
import { setImmediate } from "node:timers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usageStore } from "../support/harness.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { testDatabaseKinds, type TestDatabase } from "../storage/databases.js";

const SELLERS = Array.from({ length: 2_000 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`);

describe.each(testDatabaseKinds())("the usage store on $kind", ({ create }) => {
  let database: TestDatabase;
  let server: TestServer;

  beforeAll(async () => {
    database = await create();
    server = await startTestServer({ DATABASE_URL: database.url });
  });

  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  it("lets the event loop turn while it starts tracking thousands of sellers", async () => {
    const order: string[] = [];
    const starting = usageStore(server)
      .start({ blockNumber: 1n, blockHash: `0x${"ab".repeat(32)}` }, SELLERS, new Date())
      .then(() => void order.push("sellers written"));
    setImmediate(() => order.push("event loop turned"));
    await starting;
    expect(order).toEqual(["event loop turned", "sellers written"]);
    expect((await usageStore(server).sellerCoverage()).size).toBe(SELLERS.length);
  });
});

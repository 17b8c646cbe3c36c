// One database fault reaches the handlers wrapped in different errors (Prisma's for an ORM read, the
// catalog reader's for a driver read). The operator is told once a minute per fault, not once per
// wrapper, and a different fault is told at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import { logUnexpected } from "../../src/contract/unexpected-errors.js";
import type { Logger } from "../../src/logger.js";
import { openDatabase, type Database } from "../../src/storage/database.js";
import { testDatabaseKinds, type TestDatabase } from "../storage/databases.js";

function recordingLogger(): { logger: Logger; errors: unknown[][] } {
  const errors: unknown[][] = [];
  const logger = { error: (...args: unknown[]) => void errors.push(args), debug: () => {} } as unknown as Logger;
  return { logger, errors };
}

async function failure(read: () => Promise<unknown>): Promise<unknown> {
  try {
    await read();
  } catch (error) {
    return error;
  }
  throw new Error("the read did not fail");
}

describe.each(testDatabaseKinds())("unexpected storage errors on $kind", ({ create }) => {
  let target: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    target = await create();
    database = await openDatabase(target.url);
  });

  afterAll(async () => {
    await database.close();
    await target.drop();
  });

  it("logs a missing table once whether Prisma or the catalog reader met it, and another fault at once", async () => {
    const missingTable = Prisma.sql`SELECT 1 FROM "NoSuchTable"`;
    const viaPrisma = await failure(() => database.prisma.$queryRaw(missingTable));
    const viaReader = await failure(() => database.reader.rows(missingTable));
    const viaPrismaModel = await failure(() =>
      database.prisma.$queryRawUnsafe(`SELECT 1 FROM "NoSuchTable" WHERE 1 = 1`),
    );
    const otherFault = new TypeError("a bug in a handler");
    expect((viaPrisma as Error).name).not.toBe((viaReader as Error).name);

    const { logger, errors } = recordingLogger();
    const now = 1_000_000;
    for (const error of [viaPrisma, viaReader, viaPrismaModel, viaReader])
      logUnexpected(logger, error, {}, "read failed", now);
    expect(errors).toHaveLength(1);
    logUnexpected(logger, otherFault, {}, "read failed", now);
    expect(errors).toHaveLength(2);
    logUnexpected(logger, viaReader, {}, "read failed", now + 61_000);
    expect(errors).toHaveLength(3);
    expect(errors[2]![0]).toMatchObject({ suppressedSinceLast: 3 });
  });
});

// Leases in the database: a named job (the chain indexer) runs on one instance at a time across
// every instance sharing the database. A lease runs out unless renewed, so an instance that dies
// (kill -9 included) hands the job over within one lease time; nothing is held only in memory.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Database } from "./database.js";

/** This process, as a lease holder: host, pid and a random part (a restarted pid is another holder). */
export const INSTANCE_ID = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

export class JobLeases {
  constructor(
    private readonly db: Database,
    readonly holder: string = INSTANCE_ID,
  ) {}

  /**
   * Takes or renews the lease `name` until now + ttlMs: true when this holder has it now (it was
   * free, had run out, or was already ours). One statement, so two instances cannot both win.
   */
  async acquire(name: string, ttlMs: number, now: Date = new Date()): Promise<boolean> {
    const until = new Date(now.getTime() + ttlMs);
    const changed = await this.db.exclusive(
      () =>
        this.db.prisma
          .$executeRaw`INSERT INTO "JobLease" ("name", "holder", "expiresAt") VALUES (${name}, ${this.holder}, ${until})
        ON CONFLICT ("name") DO UPDATE SET "holder" = excluded."holder", "expiresAt" = excluded."expiresAt"
        WHERE "JobLease"."expiresAt" < ${now} OR "JobLease"."holder" = ${this.holder}`,
    );
    return changed > 0;
  }

  /** Gives the lease up at once (a clean stop), if this holder has it. */
  async release(name: string): Promise<void> {
    await this.db.exclusive(
      () => this.db.prisma.$executeRaw`DELETE FROM "JobLease" WHERE "name" = ${name} AND "holder" = ${this.holder}`,
    );
  }

  /** Who holds `name` and until when, or null (status documents, tests). */
  async holderOf(name: string): Promise<{ holder: string; expiresAt: Date } | null> {
    return this.db.exclusive(() =>
      this.db.prisma.jobLease.findUnique({ where: { name }, select: { holder: true, expiresAt: true } }),
    );
  }
}

// Webhook subscriptions and their deliveries (src/webhooks/). Not catalog writes (nothing a catalog
// read shows changes), so they go through the database directly, on SQLite's one connection too.
import { Prisma, type WebhookDelivery, type WebhookSubscription } from "../../generated/prisma/sqlite/client.js";
import type { CatalogTransactions } from "../storage/catalog/catalog-transactions.js";
import { isUniqueViolation } from "../storage/database.js";
import {
  CHALLENGE_NOT_ECHOED,
  EndpointFullError,
  NonceSpentError,
  PendingCapError,
  REFUSED_HELD_MS,
  SELLER_NONCE_LISTING,
  type NewDelivery,
  type NewSubscription,
  type SubscriptionCaps,
} from "./webhook-types.js";

export type { WebhookDelivery, WebhookSubscription };
export * from "./webhook-types.js";

/** The status of a subscription deleted before it was verified: hidden, holding its pending place for a day. */
const DELETED_UNVERIFIED = "deleted";

export class WebhookStore {
  constructor(private readonly transactions: CatalogTransactions) {}

  private get prisma() {
    return this.transactions.prisma;
  }

  private run<T>(fn: () => Promise<T>): Promise<T> {
    return this.transactions.read(fn);
  }

  private readonly creating = new Map<string, Promise<unknown>>();

  private oneAtATime<T>(url: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.creating.get(url) ?? Promise.resolve()).then(() => this.run(fn));
    const settled = run.catch(() => {});
    this.creating.set(url, settled);
    void settled.then(() => {
      if (this.creating.get(url) === settled) this.creating.delete(url);
    });
    return run;
  }

  /**
   * A pending subscription following the events recorded after now, unless its URL holds `caps.perUrl`
   * subscriptions already or a pending cap is reached (pending subscriptions and endpoints refused in
   * the last day, per client, per host, in all). The counts and the insert are one transaction; on
   * PostgreSQL an advisory lock makes two instances creating at once count one after the other (SQLite
   * writes one transaction at a time). Within the instance creations queue before their transaction
   * opens: a burst of them waiting on the lock inside transactions held every pooled connection until
   * the later ones timed out (503). Creation is rate-limited per client, so one queue costs nothing.
   */
  async create(input: NewSubscription, caps: SubscriptionCaps, now: Date): Promise<WebhookSubscription> {
    try {
      return await this.oneAtATime("subscriptions", () =>
        this.prisma.$transaction(async (tx) => {
          if (this.transactions.kind === "postgres")
            await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('webhook-subscriptions'))`;
          if (
            (await tx.webhookSubscription.count({
              where: { url: input.url, status: { in: ["pending", "active"] } },
            })) >= caps.perUrl
          ) {
            throw new EndpointFullError();
          }
          const lastDay = { gt: new Date(now.getTime() - REFUSED_HELD_MS) };
          const holdingPlace = {
            OR: [
              { status: "pending" },
              { status: "disabled", disabledReason: CHALLENGE_NOT_ECHOED, createdAt: lastDay },
              { status: DELETED_UNVERIFIED, createdAt: lastDay },
            ],
          };
          const checks = [
            ["client", { clientIp: input.clientIp }, caps.pendingPerClient],
            ["host", { host: input.host }, caps.pendingPerHost],
            ["total", {}, caps.pendingTotal],
          ] as const;
          for (const [cap, where, limit] of checks) {
            if ((await tx.webhookSubscription.count({ where: { ...where, ...holdingPlace } })) >= limit)
              throw new PendingCapError(cap, limit);
          }
          if (input.nonce) {
            await tx.ownerNonce.create({
              data: {
                nonce: input.nonce.nonce.toLowerCase(),
                listingId: SELLER_NONCE_LISTING,
                action: "subscribe",
                signer: input.nonce.signer,
                usedAt: now,
              },
            });
          }
          const last = await tx.listingEvent.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } });
          return tx.webhookSubscription.create({
            data: {
              url: input.url,
              kind: input.kind,
              sellerPayTo: input.sellerPayTo ?? null,
              listingIds: input.listingIds ?? Prisma.DbNull,
              search: (input.search as Prisma.InputJsonValue | undefined) ?? Prisma.DbNull,
              eventTypes: input.eventTypes ?? Prisma.DbNull,
              secret: input.secret,
              secretHash: input.secretHash,
              status: "pending",
              challenge: input.challenge,
              fromSeq: last?.seq ?? 0,
              createdAt: now,
              clientIp: input.clientIp,
              host: input.host,
              nextVerifyAt: now,
            },
          });
        }),
      );
    } catch (error) {
      if (input.nonce && isUniqueViolation(error)) throw new NonceSpentError();
      throw error;
    }
  }

  find(id: string): Promise<WebhookSubscription | null> {
    return this.run(async () => {
      const row = await this.prisma.webhookSubscription.findUnique({ where: { id } });
      return row?.status === DELETED_UNVERIFIED ? null : row;
    });
  }

  /**
   * Deletes a subscription. One never verified and created in the last day is kept, hidden, until the
   * day is over: it still holds its pending place, so subscribe-delete-subscribe cannot cycle the caps.
   */
  delete(id: string, now: Date): Promise<void> {
    return this.run(async () => {
      const { count } = await this.prisma.webhookSubscription.updateMany({
        where: { id, verifiedAt: null, createdAt: { gt: new Date(now.getTime() - REFUSED_HELD_MS) } },
        data: { status: DELETED_UNVERIFIED, challenge: null, nextVerifyAt: null },
      });
      if (count === 0) await this.prisma.webhookSubscription.deleteMany({ where: { id } });
    });
  }

  /** Forgets the hidden, deleted subscriptions created before `before` (and their queued deliveries). */
  async forgetDeleted(before: Date): Promise<number> {
    const { count } = await this.run(() =>
      this.prisma.webhookSubscription.deleteMany({ where: { status: DELETED_UNVERIFIED, createdAt: { lt: before } } }),
    );
    return count;
  }

  /** The newest deliveries of one subscription, newest first. */
  deliveries(subscriptionId: string, limit: number): Promise<WebhookDelivery[]> {
    return this.run(() =>
      this.prisma.webhookDelivery.findMany({ where: { subscriptionId }, orderBy: { eventSeq: "desc" }, take: limit }),
    );
  }

  /** These subscriptions (the ones a page of due deliveries belongs to). */
  subscriptions(ids: string[]): Promise<WebhookSubscription[]> {
    return this.run(() => this.prisma.webhookSubscription.findMany({ where: { id: { in: ids } } }));
  }

  /** Every subscription that may receive events (pending ones queue theirs until verified). */
  following(): Promise<WebhookSubscription[]> {
    return this.run(() =>
      this.prisma.webhookSubscription.findMany({ where: { status: { in: ["pending", "active"] } } }),
    );
  }

  /** Pending subscriptions whose next verification request is due, the longest due first (round-robin). */
  pendingVerification(now: Date, limit: number): Promise<WebhookSubscription[]> {
    return this.run(() =>
      this.prisma.webhookSubscription.findMany({
        where: { status: "pending", OR: [{ nextVerifyAt: null }, { nextVerifyAt: { lte: now } }] },
        orderBy: [{ nextVerifyAt: { sort: "asc", nulls: "first" } }, { createdAt: "asc" }],
        take: limit,
      }),
    );
  }

  /** A verification request went unanswered: the next one is due at `retryAt`. */
  async verificationDeferred(id: string, retryAt: Date): Promise<void> {
    await this.run(() =>
      this.prisma.webhookSubscription.updateMany({
        where: { id, status: "pending" },
        data: { verifyAttempts: { increment: 1 }, nextVerifyAt: retryAt },
      }),
    );
  }

  async verified(id: string, now: Date): Promise<void> {
    await this.run(() =>
      this.prisma.webhookSubscription.updateMany({
        where: { id, status: "pending" },
        data: { status: "active", challenge: null, verifiedAt: now },
      }),
    );
  }

  async disable(id: string, reason: string): Promise<void> {
    await this.run(() =>
      this.prisma.webhookSubscription.updateMany({
        where: { id },
        data: { status: "disabled", disabledReason: reason, nextVerifyAt: null },
      }),
    );
  }

  async cursor(name: string): Promise<number | null> {
    const row = await this.run(() => this.prisma.outboxCursor.findUnique({ where: { name } }));
    return row?.seq ?? null;
  }

  /**
   * Whether a deliverer pass would find nothing to do: no pending endpoint due a verification request, no event after
   * the cursor `name`, no delivery due now to a verified endpoint. One indexed read, so an idle poll
   * costs one statement instead of a pass's five.
   */
  async nothingToDo(name: string, now: Date): Promise<boolean> {
    const [row] = await this.run(() =>
      this.prisma.$queryRaw<
        Array<{ cursor: unknown; lastSeq: unknown; pending: unknown; due: unknown }>
      >(Prisma.sql`SELECT
        (SELECT "seq" FROM "OutboxCursor" WHERE "name" = ${name}) AS "cursor",
        (SELECT MAX("seq") FROM "ListingEvent") AS "lastSeq",
        (SELECT COUNT(*) FROM (SELECT 1 FROM "WebhookSubscription" WHERE "status" = 'pending'
          AND ("nextVerifyAt" IS NULL OR "nextVerifyAt" <= ${now}) LIMIT 1) p) AS "pending",
        (SELECT COUNT(*) FROM (SELECT 1 FROM "WebhookDelivery" d JOIN "WebhookSubscription" s ON s."id" = d."subscriptionId"
          WHERE d."status" = 'pending' AND d."nextAttemptAt" <= ${now} AND s."status" = 'active' LIMIT 1) q) AS "due"`),
    );
    if (!row || row.cursor === null || row.cursor === undefined) return false;
    const newEvents = row.lastSeq !== null && row.lastSeq !== undefined && Number(row.lastSeq) > Number(row.cursor);
    return !newEvents && Number(row.pending) === 0 && Number(row.due) === 0;
  }

  /** The fan-out of a page of events: its deliveries and the cursor's move, in one transaction (no event fanned out twice). */
  async fanOut(
    name: string,
    fromSeq: number | null,
    toSeq: number,
    deliveries: NewDelivery[],
    now: Date,
  ): Promise<boolean> {
    return this.run(() =>
      this.prisma.$transaction(async (tx) => {
        // Compare-and-set on the cursor: a second deliverer that read the same page writes nothing.
        if (fromSeq === null) {
          const created =
            await tx.$executeRaw`INSERT INTO "OutboxCursor" ("name", "seq", "updatedAt") VALUES (${name}, ${toSeq}, ${now}) ON CONFLICT ("name") DO NOTHING`;
          if (created === 0) return false;
        } else {
          const moved = await tx.outboxCursor.updateMany({
            where: { name, seq: fromSeq },
            data: { seq: toSeq, updatedAt: now },
          });
          if (moved.count === 0) return false;
        }
        if (deliveries.length > 0) {
          await tx.webhookDelivery.createMany({
            data: deliveries.map((delivery) => ({
              ...delivery,
              status: "pending",
              attempts: 0,
              nextAttemptAt: now,
              createdAt: now,
            })),
          });
        }
        return true;
      }),
    );
  }

  /**
   * Deliveries due now, each the oldest undelivered one of its subscription (so every subscriber
   * receives its events in order), of subscriptions that are verified. Healthy subscribers first: one
   * whose head delivery has never failed, and of those one with a delivery on record, before the rest.
   */
  due(now: Date, limit: number): Promise<WebhookDelivery[]> {
    return this.run(async () => {
      const heads = await this.prisma.$queryRaw<Array<{ id: string }>>(Prisma.sql`
        SELECT d."id" FROM "WebhookDelivery" d JOIN "WebhookSubscription" s ON s."id" = d."subscriptionId"
        WHERE s."status" = 'active' AND d."status" = 'pending' AND d."nextAttemptAt" <= ${now}
          AND d."eventSeq" = (SELECT MIN(e."eventSeq") FROM "WebhookDelivery" e WHERE e."subscriptionId" = d."subscriptionId" AND e."status" = 'pending')
        ORDER BY CASE WHEN d."attempts" > 0 THEN 1 ELSE 0 END,
          CASE WHEN EXISTS (SELECT 1 FROM "WebhookDelivery" x WHERE x."subscriptionId" = d."subscriptionId" AND x."status" = 'delivered') THEN 0 ELSE 1 END,
          d."nextAttemptAt", d."eventSeq" LIMIT ${limit}`);
      if (heads.length === 0) return [];
      const rows = new Map(
        (await this.prisma.webhookDelivery.findMany({ where: { id: { in: heads.map((row) => String(row.id)) } } })).map(
          (row) => [row.id, row],
        ),
      );
      return heads.map((head) => rows.get(String(head.id))).filter((row) => row !== undefined);
    });
  }

  /** Deliveries that succeeded, recorded together (one statement per status code): a burst takes few turns of the database. */
  async delivered(done: Array<{ id: string; statusCode: number }>, now: Date): Promise<void> {
    const byStatus = new Map<number, string[]>();
    for (const { id, statusCode } of done) byStatus.set(statusCode, [...(byStatus.get(statusCode) ?? []), id]);
    await this.run(() =>
      this.prisma.$transaction(
        [...byStatus].map(([statusCode, ids]) =>
          this.prisma.webhookDelivery.updateMany({
            where: { id: { in: ids }, status: "pending" },
            data: {
              status: "delivered",
              attempts: { increment: 1 },
              lastAttemptAt: now,
              lastStatusCode: statusCode,
              lastError: null,
              deliveredAt: now,
            },
          }),
        ),
      ),
    );
  }

  /** A failed attempt: tried again at `retryAt`, or given up (null). */
  async attemptFailed(
    id: string,
    failure: { statusCode: number | null; error: string; retryAt: Date | null },
    now: Date,
  ): Promise<void> {
    await this.run(() =>
      this.prisma.webhookDelivery.updateMany({
        where: { id, status: "pending" },
        data: {
          attempts: { increment: 1 },
          lastAttemptAt: now,
          lastStatusCode: failure.statusCode,
          lastError: failure.error,
          ...(failure.retryAt ? { nextAttemptAt: failure.retryAt } : { status: "failed" }),
        },
      }),
    );
  }

  /** Forgets delivered and failed deliveries older than `before`. */
  async prune(before: Date): Promise<number> {
    const { count } = await this.run(() =>
      this.prisma.webhookDelivery.deleteMany({ where: { status: { not: "pending" }, createdAt: { lt: before } } }),
    );
    return count;
  }
}

// Webhook subscriptions and their deliveries (src/webhooks/). Not catalog writes (nothing a catalog
// read shows changes), so they go through the database directly, on SQLite's one connection too.
import { Prisma, type WebhookDelivery, type WebhookSubscription } from "../../generated/prisma/sqlite/client.js";
import type { CatalogTransactions } from "./catalog-transactions.js";
import { isUniqueViolation } from "./database.js";

export type { WebhookDelivery, WebhookSubscription };

/** The owner nonce a seller's subscription spends: OwnerNonce rows are per listing, this one is per seller. */
export const SELLER_NONCE_LISTING = "00000000-0000-0000-0000-000000000000";

export interface NewSubscription {
  url: string;
  kind: "seller" | "listings" | "search";
  sellerPayTo?: string;
  listingIds?: string[];
  search?: Record<string, unknown>;
  eventTypes?: string[];
  secret: string;
  secretHash: string;
  challenge: string;
  /** A seller's subscription spends its signed nonce in the same transaction. */
  nonce?: { nonce: string; signer: string };
}

export interface NewDelivery {
  subscriptionId: string;
  eventId: string;
  eventSeq: number;
  listingId: string;
  payload: string;
}

/** The endpoint holds its cap of subscriptions already (counted in the creating transaction). */
export class EndpointFullError extends Error {
  constructor() {
    super("endpoint has its cap of subscriptions");
    this.name = "EndpointFullError";
  }
}

export class NonceSpentError extends Error {
  constructor() {
    super("nonce used already");
    this.name = "NonceSpentError";
  }
}

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
   * A pending subscription following the events recorded after now, unless its URL holds `capPerUrl`
   * subscriptions already. The count and the insert are one transaction; on PostgreSQL an advisory
   * lock on the URL makes two instances creating at once count one after the other (SQLite writes
   * one transaction at a time). Within the instance creations for one URL queue before their
   * transaction opens: a burst of them waiting on the lock inside transactions held every pooled
   * connection until the later ones timed out (503).
   */
  async create(input: NewSubscription, capPerUrl: number, now: Date): Promise<WebhookSubscription> {
    try {
      return await this.oneAtATime(input.url, () =>
        this.prisma.$transaction(async (tx) => {
          if (this.transactions.kind === "postgres") await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${input.url}))`;
          if ((await tx.webhookSubscription.count({ where: { url: input.url, status: { not: "disabled" } } })) >= capPerUrl) throw new EndpointFullError();
          if (input.nonce) {
            await tx.ownerNonce.create({
              data: { nonce: input.nonce.nonce.toLowerCase(), listingId: SELLER_NONCE_LISTING, action: "subscribe", signer: input.nonce.signer, usedAt: now },
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
    return this.run(() => this.prisma.webhookSubscription.findUnique({ where: { id } }));
  }

  delete(id: string): Promise<void> {
    return this.run(async () => {
      await this.prisma.webhookSubscription.deleteMany({ where: { id } });
    });
  }

  /** The newest deliveries of one subscription, newest first. */
  deliveries(subscriptionId: string, limit: number): Promise<WebhookDelivery[]> {
    return this.run(() => this.prisma.webhookDelivery.findMany({ where: { subscriptionId }, orderBy: { eventSeq: "desc" }, take: limit }));
  }

  /** These subscriptions (the ones a page of due deliveries belongs to). */
  subscriptions(ids: string[]): Promise<WebhookSubscription[]> {
    return this.run(() => this.prisma.webhookSubscription.findMany({ where: { id: { in: ids } } }));
  }

  /** Every subscription that may receive events (pending ones queue theirs until verified). */
  following(): Promise<WebhookSubscription[]> {
    return this.run(() => this.prisma.webhookSubscription.findMany({ where: { status: { in: ["pending", "active"] } } }));
  }

  pendingVerification(limit: number): Promise<WebhookSubscription[]> {
    return this.run(() => this.prisma.webhookSubscription.findMany({ where: { status: "pending" }, orderBy: { createdAt: "asc" }, take: limit }));
  }

  async verified(id: string, now: Date): Promise<void> {
    await this.run(() =>
      this.prisma.webhookSubscription.updateMany({ where: { id, status: "pending" }, data: { status: "active", challenge: null, verifiedAt: now } }),
    );
  }

  async disable(id: string, reason: string): Promise<void> {
    await this.run(() => this.prisma.webhookSubscription.updateMany({ where: { id }, data: { status: "disabled", disabledReason: reason } }));
  }

  async cursor(name: string): Promise<number | null> {
    const row = await this.run(() => this.prisma.outboxCursor.findUnique({ where: { name } }));
    return row?.seq ?? null;
  }

  /**
   * Whether a deliverer pass would find nothing to do: no pending endpoint to verify, no event after
   * the cursor `name`, no delivery due now to a verified endpoint. One indexed read, so an idle poll
   * costs one statement instead of a pass's five.
   */
  async nothingToDo(name: string, now: Date): Promise<boolean> {
    const [row] = await this.run(() =>
      this.prisma.$queryRaw<Array<{ cursor: unknown; lastSeq: unknown; pending: unknown; due: unknown }>>(Prisma.sql`SELECT
        (SELECT "seq" FROM "OutboxCursor" WHERE "name" = ${name}) AS "cursor",
        (SELECT MAX("seq") FROM "ListingEvent") AS "lastSeq",
        (SELECT COUNT(*) FROM (SELECT 1 FROM "WebhookSubscription" WHERE "status" = 'pending' LIMIT 1) p) AS "pending",
        (SELECT COUNT(*) FROM (SELECT 1 FROM "WebhookDelivery" d JOIN "WebhookSubscription" s ON s."id" = d."subscriptionId"
          WHERE d."status" = 'pending' AND d."nextAttemptAt" <= ${now} AND s."status" = 'active' LIMIT 1) q) AS "due"`),
    );
    if (!row || row.cursor === null || row.cursor === undefined) return false;
    const newEvents = row.lastSeq !== null && row.lastSeq !== undefined && Number(row.lastSeq) > Number(row.cursor);
    return !newEvents && Number(row.pending) === 0 && Number(row.due) === 0;
  }

  /** The fan-out of a page of events: its deliveries and the cursor's move, in one transaction (no event fanned out twice). */
  async fanOut(name: string, fromSeq: number | null, toSeq: number, deliveries: NewDelivery[], now: Date): Promise<boolean> {
    return this.run(() =>
      this.prisma.$transaction(async (tx) => {
        // Compare-and-set on the cursor: a second deliverer that read the same page writes nothing.
        if (fromSeq === null) {
          const created =
            await tx.$executeRaw`INSERT INTO "OutboxCursor" ("name", "seq", "updatedAt") VALUES (${name}, ${toSeq}, ${now}) ON CONFLICT ("name") DO NOTHING`;
          if (created === 0) return false;
        } else {
          const moved = await tx.outboxCursor.updateMany({ where: { name, seq: fromSeq }, data: { seq: toSeq, updatedAt: now } });
          if (moved.count === 0) return false;
        }
        if (deliveries.length > 0) {
          await tx.webhookDelivery.createMany({
            data: deliveries.map((delivery) => ({ ...delivery, status: "pending", attempts: 0, nextAttemptAt: now, createdAt: now })),
          });
        }
        return true;
      }),
    );
  }

  /**
   * Deliveries due now, each the oldest undelivered one of its subscription (so every subscriber
   * receives its events in order), of subscriptions that are verified.
   */
  due(now: Date, limit: number): Promise<WebhookDelivery[]> {
    return this.run(async () => {
      const heads = await this.prisma.$queryRaw<Array<{ id: string }>>(Prisma.sql`
        SELECT d."id" FROM "WebhookDelivery" d JOIN "WebhookSubscription" s ON s."id" = d."subscriptionId"
        WHERE s."status" = 'active' AND d."status" = 'pending' AND d."nextAttemptAt" <= ${now}
          AND d."eventSeq" = (SELECT MIN(e."eventSeq") FROM "WebhookDelivery" e WHERE e."subscriptionId" = d."subscriptionId" AND e."status" = 'pending')
        ORDER BY d."nextAttemptAt", d."eventSeq" LIMIT ${limit}`);
      if (heads.length === 0) return [];
      return this.prisma.webhookDelivery.findMany({ where: { id: { in: heads.map((row) => String(row.id)) } }, orderBy: { eventSeq: "asc" } });
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
            data: { status: "delivered", attempts: { increment: 1 }, lastAttemptAt: now, lastStatusCode: statusCode, lastError: null, deliveredAt: now },
          }),
        ),
      ),
    );
  }

  /** A failed attempt: tried again at `retryAt`, or given up (null). */
  async attemptFailed(id: string, failure: { statusCode: number | null; error: string; retryAt: Date | null }, now: Date): Promise<void> {
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
    const { count } = await this.run(() => this.prisma.webhookDelivery.deleteMany({ where: { status: { not: "pending" }, createdAt: { lt: before } } }));
    return count;
  }
}

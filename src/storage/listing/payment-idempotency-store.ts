// Paid requests' x402 payment-identifier (issue 15): the first request with an id reserves it
// (status null) and, once answered 200, stores that answer; a resend of the same payload gets it
// back, another payload under the same id is refused. Nothing here is shown by the catalog, so it
// is written without a catalog version bump.
import { Prisma } from "../../../generated/prisma/sqlite/client.js";
import type { CatalogTransactions } from "../catalog/catalog-transactions.js";
import { isUniqueViolation } from "../database.js";

/** An answer as it was sent: status, the headers that matter (PAYMENT-RESPONSE) and the JSON body. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Prisma.InputJsonValue;
}

export type IdempotencyClaim =
  /** The id is new (or its earlier request was abandoned): this request answers it. */
  | { kind: "new" }
  | { kind: "stored"; answer: StoredAnswer }
  /** Another request with this id and payload is still being answered. */
  | { kind: "in_progress" }
  /** The id was used with another payload. */
  | { kind: "conflict" };

export class PaymentIdempotencyStore {
  constructor(private readonly transactions: CatalogTransactions) {}

  private get prisma() {
    return this.transactions.prisma;
  }

  /**
   * Reserves `id` for `payloadHash`. A reservation older than `abandonedBefore` whose request never
   * finished (the instance died mid-request) is taken over.
   */
  async claim(id: string, payloadHash: string, now: Date, abandonedBefore: Date): Promise<IdempotencyClaim> {
    try {
      await this.transactions.read(() =>
        this.prisma.paymentIdempotency.create({
          data: { id, payloadHash, status: null, response: Prisma.DbNull, createdAt: now },
        }),
      );
      return { kind: "new" };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const found = await this.transactions.read(() => this.prisma.paymentIdempotency.findUnique({ where: { id } }));
    if (!found) return this.claim(id, payloadHash, now, abandonedBefore);
    if (found.payloadHash !== payloadHash) return { kind: "conflict" };
    if (found.status !== null && found.response !== null)
      return { kind: "stored", answer: found.response as unknown as StoredAnswer };
    const { count } = await this.transactions.read(() =>
      this.prisma.paymentIdempotency.updateMany({
        where: { id, status: null, createdAt: { lt: abandonedBefore } },
        data: { createdAt: now },
      }),
    );
    return count === 1 ? { kind: "new" } : { kind: "in_progress" };
  }

  /** Stores the answer sent for `id`. */
  async complete(id: string, answer: StoredAnswer): Promise<void> {
    await this.transactions.read(() =>
      this.prisma.paymentIdempotency.update({
        where: { id },
        data: { status: answer.status, response: answer as unknown as Prisma.InputJsonObject },
      }),
    );
  }

  /** Frees a reservation whose request ended without an answer worth repeating (the id may be sent again). */
  async release(id: string): Promise<void> {
    await this.transactions.read(() => this.prisma.paymentIdempotency.deleteMany({ where: { id, status: null } }));
  }

  /** Forgets ids stored before `before` (resends come within minutes; a day is plenty). */
  async prune(before: Date): Promise<number> {
    const { count } = await this.transactions.read(() =>
      this.prisma.paymentIdempotency.deleteMany({ where: { createdAt: { lt: before } } }),
    );
    return count;
  }
}

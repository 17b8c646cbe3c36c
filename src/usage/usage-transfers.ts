// The usage indexer's reads of the transfers it stored (UsageTransfer), for UsageStore: the groups
// the wash rules judge (wash.ts, funding.ts), the groups around one seller and its transfers for a
// listing's daily history (history.ts), and the transfers whose transaction is not read yet
// (funding.ts). Reads only, each through the catalog's read path.
import type { Prisma } from "../../generated/prisma/sqlite/client.js";
import type { CatalogTransactions } from "../storage/catalog/catalog-transactions.js";
import type { PendingTransfer, TransferGroup } from "./usage-types.js";

/** Rows (or keys of an IN list) per statement. */
export const INSERT_BATCH = 500;

/** Transfers matching `where`, grouped by (payTo, payer, amount, kind, sender), with their count and first and last time. */
async function groupedTransfers(
  transactions: CatalogTransactions,
  where: Prisma.UsageTransferWhereInput,
): Promise<TransferGroup[]> {
  const rows = await transactions.read(() =>
    transactions.db.prisma.usageTransfer.groupBy({
      by: ["payTo", "payer", "amount", "kind", "sender"],
      where,
      _count: { _all: true },
      _min: { at: true },
      _max: { at: true },
    }),
  );
  return rows.map((row) => ({
    payTo: row.payTo,
    payer: row.payer,
    amount: row.amount,
    kind: row.kind,
    sender: row.sender,
    count: row._count._all,
    firstAt: row._min.at!,
    lastAt: row._max.at!,
  }));
}

/** Every transfer since `since`, grouped by (payTo, payer, amount, kind, sender). */
export async function groupsSince(transactions: CatalogTransactions, since: Date): Promise<TransferGroup[]> {
  return groupedTransfers(transactions, { at: { gte: since } });
}

/**
 * The groups a listing's daily history needs: transfers to and from its seller and its payers, and
 * to and from every address of their funding trails (wash.ts TRAIL_HOPS back, and the funders of
 * the last hop, where the seller may show). Mints are not followed (the zero address funds everyone).
 */
export async function groupsAround(
  transactions: CatalogTransactions,
  seller: string,
  since: Date,
): Promise<TransferGroup[]> {
  const found = new Map<string, TransferGroup>();
  const around = async (addresses: string[]) => {
    const groups: TransferGroup[] = [];
    for (let index = 0; index < addresses.length; index += INSERT_BATCH) {
      const batch = addresses.slice(index, index + INSERT_BATCH);
      groups.push(
        ...(await groupedTransfers(transactions, {
          at: { gte: since },
          OR: [{ payTo: { in: batch } }, { payer: { in: batch } }],
        })),
      );
    }
    for (const group of groups)
      found.set(`${group.payTo}|${group.payer}|${group.amount}|${group.kind}|${group.sender}`, group);
    return groups;
  };
  const seen = new Set([seller, "0x0000000000000000000000000000000000000000"]);
  let level = [seller];
  // The seller, its payers, then each hop back: the payers' funders (1) to the trail's last hop's (4).
  for (let hop = -1; hop <= 3 && level.length > 0; hop++) {
    const inside = new Set(level);
    const groups = await around(level);
    level = [...new Set(groups.filter((group) => inside.has(group.payTo)).map((group) => group.payer))].filter(
      (address) => !seen.has(address),
    );
    for (const address of level) seen.add(address);
  }
  return [...found.values()];
}

/** One listing's transfers of one amount since `since`, for its daily history. */
export async function transfersTo(
  transactions: CatalogTransactions,
  seller: string,
  amount: string,
  since: Date,
): Promise<{ payer: string; amount: string; kind: string; sender: string | null; at: Date }[]> {
  return transactions.read(() =>
    transactions.db.prisma.usageTransfer.findMany({
      where: { payTo: seller, amount, at: { gte: since } },
      select: { payer: true, amount: true, kind: true, sender: true, at: true },
      orderBy: { at: "asc" },
      take: 100_000,
    }),
  );
}

/** Transfers to sellers whose transaction is not read yet, oldest first. */
export async function pendingTransfers(
  transactions: CatalogTransactions,
  since: Date,
  limit: number,
): Promise<PendingTransfer[]> {
  return transactions.read(() =>
    transactions.db.prisma.usageTransfer.findMany({
      where: { kind: "pending", at: { gte: since } },
      select: { id: true, txHash: true, logIndex: true, payer: true, payTo: true, amount: true },
      orderBy: { blockNumber: "asc" },
      take: limit,
    }),
  );
}

// Which transfers to a seller are sales, and which payers are one buyer: the wash rules the README
// states ("Wash filtering, exactly"). Pure functions over the window's transfer groups (sales,
// the funding read behind payers, and the funders' own transfers) and the funding readers' cursors.
import type { TransferGroup } from "./usage-store.js";

export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
/** A funder seen sending to more than this many addresses is a hub (an exchange, a bridge): not a common source. */
export const HUB_FANOUT = 20;

/** Why a transfer to a seller is not counted (the keys of `excluded` in metadata.usage). */
export type ExclusionReason =
  | "self_payment"
  | "marketplace"
  | "unlisted_amount"
  | "pending"
  | "not_x402_authorization"
  | "self_submitted"
  | "seller_funded"
  | "untraced_funding"
  | "common_funding";

/** How many hops back a payer's funding is traced (the seller is looked for one hop further, among its own recipients). */
export const TRAIL_HOPS = 3;

/**
 * A payer's funding trail: the addresses that sent it tokens (hop 1), that sent those tokens (hop 2),
 * and so on to TRAIL_HOPS, each address once. A hub or a listed seller is a node but not followed
 * further (an exchange's inflow is everyone's; a seller's inflow is its sales); mints and the
 * marketplace wallet are not nodes (they are evidence, see `rooted`).
 */
interface Trail {
  /** levels[0] is the payer; levels[h] the addresses h hops back. */
  levels: string[][];
}

/** Where the funding reads stand: address -> the block its incoming ("to") or outgoing ("from") transfers are read up to. */
export interface FundingCoverage {
  to: Map<string, bigint>;
  from: Map<string, bigint>;
}

/** What a transfer showed, as the rules need it. */
export interface TransferFacts {
  payer: string;
  amount: string;
  kind: string;
  sender: string | null;
}

export interface SellerVerdicts {
  /** null: counted. */
  reasonOf(transfer: TransferFacts): ExclusionReason | null;
  /** The buyer a counted payer is: payers collapsed onto a common funding source share one key. */
  buyerOf(payer: string): string;
}

const add = (map: Map<string, Set<string>>, key: string, value: string) => {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
};

/**
 * The transfer-level rules (before any funding is looked at), in order: self-payment, the
 * marketplace wallet, an amount none of the seller's live listings costs (never checked on chain),
 * not read yet, no EIP-3009 authorization by the payer, sent by the payer or the seller.
 */
export function transferReason(
  transfer: TransferFacts,
  seller: string,
  prices: ReadonlySet<string>,
  marketplace: string,
): ExclusionReason | null {
  if (transfer.payer === seller) return "self_payment";
  if (transfer.payer === marketplace) return "marketplace";
  if (!prices.has(transfer.amount)) return "unlisted_amount";
  if (transfer.kind === "plain") return "not_x402_authorization";
  if (transfer.kind !== "x402") return "pending";
  if (transfer.sender === transfer.payer || transfer.sender === seller) return "self_submitted";
  return null;
}

export class WashRules {
  /** recipient -> senders, sender -> recipients (mints left out: the zero address funds nobody). */
  private readonly fundedBy = new Map<string, Set<string>>();
  private readonly sentTo = new Map<string, Set<string>>();
  private readonly minted = new Set<string>();
  /** `${from}>${to}` -> atomic units sent in the window. */
  private readonly received = new Map<string, bigint>();
  private readonly verdicts = new Map<string, SellerVerdicts>();
  private readonly trails = new Map<string, Trail>();

  constructor(
    private readonly groups: TransferGroup[],
    private readonly marketplace: string,
    private readonly sellers: ReadonlySet<string>,
    private readonly coverage: FundingCoverage,
    private readonly currentToBlock: bigint,
  ) {
    for (const group of groups) {
      const edge = `${group.payer}>${group.payTo}`;
      this.received.set(edge, (this.received.get(edge) ?? 0n) + BigInt(group.amount) * BigInt(group.count));
      if (group.payer === ZERO_ADDRESS) {
        this.minted.add(group.payTo);
        continue;
      }
      add(this.fundedBy, group.payTo, group.payer);
      add(this.sentTo, group.payer, group.payTo);
    }
  }

  private isHub(address: string): boolean {
    return (this.sentTo.get(address)?.size ?? 0) > HUB_FANOUT;
  }

  /** A funder worth following: not a mint, the marketplace or a hub. */
  private follows(address: string): boolean {
    return address !== ZERO_ADDRESS && address !== this.marketplace && !this.isHub(address);
  }

  /** Whether an address's transfers in `direction` are read up to the checkpoint (a listed seller's always are). */
  private read(address: string, direction: "to" | "from"): boolean {
    if (this.sellers.has(address)) return true;
    return (this.coverage[direction].get(address) ?? -1n) >= this.currentToBlock;
  }

  /** The funders of `payer` one hop back, and two hops back (through a one-hop funder), both followed ones only. */
  private sources(payer: string): { hop1: string[]; hop2: string[] } {
    const hop1 = [...(this.fundedBy.get(payer) ?? [])].filter((address) => this.follows(address));
    const hop2 = new Set<string>();
    // A listed seller's income is sales, not funding: the trail stops at a seller.
    for (const funder of hop1) {
      if (this.sellers.has(funder)) continue;
      for (const source of this.fundedBy.get(funder) ?? [])
        if (this.follows(source) && source !== payer) hop2.add(source);
    }
    return { hop1, hop2: [...hop2] };
  }

  /** Whether an address ends a trail: a hub or a listed seller (followed no further). */
  private terminal(address: string): boolean {
    return this.sellers.has(address) || this.isHub(address);
  }

  /** The payer's funding trail, TRAIL_HOPS back (the same for every seller it pays: computed once). */
  private trail(payer: string): Trail {
    const known = this.trails.get(payer);
    if (known) return known;
    const seen = new Set([payer]);
    const levels = [[payer]];
    for (let hop = 1; hop <= TRAIL_HOPS; hop++) {
      const next: string[] = [];
      for (const address of levels[hop - 1]!) {
        if (hop > 1 && this.terminal(address)) continue;
        for (const funder of this.fundedBy.get(address) ?? []) {
          if (funder === this.marketplace || seen.has(funder)) continue;
          seen.add(funder);
          next.push(funder);
        }
      }
      levels.push(next);
    }
    const trail = { levels };
    this.trails.set(payer, trail);
    return trail;
  }

  /**
   * The reads a trail needs: incoming for the payer and every node followed further; outgoing for
   * every node one hop back or more (whether it is a hub, whom else it pays). A node's incoming is
   * asked for only once its outgoing is read and shows no hub: an exchange's inflow is never read.
   */
  private trailReads(trail: Trail): { to: string[]; from: string[] } {
    const to: string[] = [];
    const from: string[] = [];
    trail.levels.forEach((level, hop) => {
      for (const address of level) {
        if (this.sellers.has(address)) continue;
        if (hop > 0) from.push(address);
        if (hop === 0 || (this.read(address, "from") && !this.isHub(address))) to.push(address);
      }
    });
    return { to, from };
  }

  /** Whether every read the payer's trail needs is done (a listed seller's always is). */
  private trailRead(trail: Trail): boolean {
    const { to, from } = this.trailReads(trail);
    return to.every((address) => this.read(address, "to")) && from.every((address) => this.read(address, "from"));
  }

  /**
   * The seller's own money in the trail: the seller is one of its nodes, or funded one of them (its
   * outgoing transfers are always read, so it is seen one hop beyond the trail). A hub the seller paid
   * is not its money: a seller that swaps its income through a pool or pays into an exchange would
   * otherwise take every buyer who got tokens there with it.
   */
  private sellerInTrail(trail: Trail, seller: string): boolean {
    return trail.levels.some((level, hop) =>
      level.some(
        (address) =>
          address === seller ||
          (!(hop > 0 && this.isHub(address)) && (this.fundedBy.get(address)?.has(seller) ?? false)),
      ),
    );
  }

  /** A trail address whose money is older than the window: read, not a seller or hub, and it received nothing in the window. */
  private holdsOldMoney(address: string): boolean {
    return (
      !this.sellers.has(address) &&
      !this.isHub(address) &&
      !this.minted.has(address) &&
      (this.fundedBy.get(address)?.size ?? 0) === 0
    );
  }

  /**
   * Evidence that the payer's money came from outside what the seller can make with gas alone: the
   * payer received nothing in the window (it pays with money older than the window), or its trail
   * received from outside at least what it paid the seller (`spent`). From outside: a mint, the
   * marketplace wallet, a hub (an exchange, a bridge), or a trail address holding money older than
   * the window, each counted by what it sent into the trail. Dust from such a source proves nothing.
   */
  private rooted(trail: Trail, spent: bigint): boolean {
    const payer = trail.levels[0]![0]!;
    if (this.holdsOldMoney(payer)) return true;
    // Only a trail address's incoming is read: a funder beyond the last hop may hold anything.
    const nodes = new Set(trail.levels.flat());
    let outside = 0n;
    trail.levels.forEach((level, hop) => {
      for (const address of level) {
        if (this.sellers.has(address) || (hop > 0 && this.isHub(address))) continue;
        outside += this.received.get(`${ZERO_ADDRESS}>${address}`) ?? 0n;
        for (const funder of this.fundedBy.get(address) ?? []) {
          if (funder === this.marketplace || this.isHub(funder) || (nodes.has(funder) && this.holdsOldMoney(funder)))
            outside += this.received.get(`${funder}>${address}`) ?? 0n;
        }
      }
    });
    return outside >= spent;
  }

  /** The funding reads the rules need for the payers of `seller` (what the indexer reads next). */
  wanted(seller: string, payers: Iterable<string>): { to: Set<string>; from: Set<string> } {
    const to = new Set<string>();
    const from = new Set<string>();
    for (const payer of payers) {
      if (payer === seller) continue;
      const reads = this.trailReads(this.trail(payer));
      for (const address of reads.to) to.add(address);
      for (const address of reads.from) from.add(address);
    }
    for (const set of [to, from])
      for (const address of set)
        if (this.sellers.has(address) || address === ZERO_ADDRESS || address === this.marketplace) set.delete(address);
    return { to, from };
  }

  /** The rules for the transfers to `seller` (whose live listings cost `prices`), computed once per seller. */
  forSeller(seller: string, prices: ReadonlySet<string>): SellerVerdicts {
    const known = this.verdicts.get(seller);
    if (known) return known;
    // Payers whose transfers pass the transfer-level rules: the ones funding is looked at for.
    const eligible = new Set<string>();
    for (const group of this.groups) {
      if (
        group.payTo === seller &&
        group.payer !== ZERO_ADDRESS &&
        transferReason(group, seller, prices, this.marketplace) === null
      )
        eligible.add(group.payer);
    }
    const payerReason = new Map<string, ExclusionReason>();
    const parent = new Map<string, string>();
    const find = (address: string): string => {
      let root = address;
      while (parent.get(root) !== root) root = parent.get(root)!;
      parent.set(address, root);
      return root;
    };
    const sourcesOf = new Map<string, { hop1: string[]; hop2: string[] }>();
    for (const payer of eligible) {
      const sources = this.sources(payer);
      const trail = this.trail(payer);
      if (!this.trailRead(trail)) payerReason.set(payer, "pending");
      else if (this.sellerInTrail(trail, seller)) payerReason.set(payer, "seller_funded");
      else if (!this.rooted(trail, this.received.get(`${payer}>${seller}`) ?? 0n))
        payerReason.set(payer, "untraced_funding");
      else {
        sourcesOf.set(payer, sources);
        parent.set(payer, payer);
      }
    }
    // Payers that share a funder (one or two hops back) are one buyer.
    // A payer that funded another payer is a source too.
    const firstPayerOf = new Map<string, string>([...sourcesOf.keys()].map((payer) => [payer, payer]));
    for (const [payer, { hop1, hop2 }] of sourcesOf) {
      for (const source of [...hop1, ...hop2]) {
        const other = firstPayerOf.get(source);
        if (other === undefined) firstPayerOf.set(source, payer);
        else parent.set(find(payer), find(other));
      }
    }
    const members = new Map<string, Set<string>>();
    for (const payer of sourcesOf.keys()) add(members, find(payer), payer);
    for (const cluster of members.values()) {
      if (cluster.size < 2) continue;
      const funded = new Map<string, number>();
      for (const payer of cluster) {
        for (const source of new Set([...sourcesOf.get(payer)!.hop1, ...sourcesOf.get(payer)!.hop2]))
          funded.set(source, (funded.get(source) ?? 0) + 1);
      }
      const linked = new Set(funded.keys());
      // A common source that sends to nobody but this cluster, its other funders and the seller exists to make these payers.
      const shared = [...funded].filter(([, payers]) => payers >= 2).map(([source]) => source);
      const isolated = shared.some((source) =>
        [...(this.sentTo.get(source) ?? [])].every((to) => cluster.has(to) || linked.has(to) || to === seller),
      );
      if (isolated) for (const payer of cluster) payerReason.set(payer, "common_funding");
    }

    const verdicts: SellerVerdicts = {
      reasonOf: (transfer) =>
        transferReason(transfer, seller, prices, this.marketplace) ?? payerReason.get(transfer.payer) ?? null,
      buyerOf: (payer) => (parent.has(payer) ? find(payer) : payer),
    };
    this.verdicts.set(seller, verdicts);
    return verdicts;
  }
}

// The engine's listings by slot, as columns: typed arrays for the facts it ranks and filters by, plain
// arrays for the texts. At 100k listings an object per listing (its slot and its facts) held about
// 17 MB of the engine thread's heap, a health string per listing (one per database row) 2.4 MB more.
// A seller's address is kept as its 20 bytes when it is an EVM address (5 MB of strings and a 3.7 MB
// map at 80,000 sellers, against 2 MB), in lower case otherwise. A slot's texts are dropped when it
// dies; its number is not reused (the indexes still name it).
import type { BrandClaim } from "./brands.js";
import type { HealthStatus, SearchDocument, TrustFilter } from "./types.js";

const HEALTH: readonly HealthStatus[] = ["unknown", "healthy", "unhealthy", "drifted"];
const HEALTH_CODE = new Map<string, number>(HEALTH.map((status, code) => [status, code]));
const ALIVE = 1;
const VERIFIED = 2;
/** The slot's vector is the model's (else the query encoder's stand-in until the model's arrives). */
const MODEL_VECTOR = 4;
/** A row read from another catalog or domain (source `indexed`), not a paid listing. */
const INDEXED = 8;
/** A same-origin demo row (leftover seed inventory). */
const SEED = 16;
/** Its description repeats its words like keyword stuffing (stuffed()). */
const STUFFED = 32;
const NOT_CHECKED = -1;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ADDRESS_BYTES = 20;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** What the engine ranks a listing by, as a search reads it. */
export interface TrustFacts {
  health: HealthStatus;
  verified: boolean;
  calls30d: number;
  /** A row read from another catalog, not a paid listing. */
  indexed: boolean;
}

/** The host of a resource URL, in lower case ("" when it is not a URL). */
export function originOf(resource: string): string {
  try {
    return new URL(resource).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/**
 * Whether a description repeats its words the way keyword stuffing does: one word five times or
 * more, or at least 12 words of which fewer than half are distinct.
 */
export function stuffed(words: string[]): boolean {
  const counts = new Map<string, number>();
  for (const word of words) {
    const count = (counts.get(word) ?? 0) + 1;
    if (count >= 5) return true;
    counts.set(word, count);
  }
  return words.length >= 12 && counts.size < words.length / 2;
}

/** The indexed text beside the name, description and tags: its resource, declared fields and extensions. */
const otherText = (doc: SearchDocument) => `${doc.resource}\n${doc.declared ?? ""}\n${doc.extensions ?? ""}`;

/** FNV-1a, 32 bits: enough to notice that a listing's resource changed. */
export function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash >>> 0;
}

/** Writes an EVM address's 20 bytes (its hex digits, either case) at `offset`. */
function writeAddress(address: string, into: Uint8Array, offset: number): void {
  for (let i = 0; i < ADDRESS_BYTES; i++) into[offset + i] = Number.parseInt(address.slice(2 + 2 * i, 4 + 2 * i), 16);
}

/** The column with room for `size` entries: doubled when it grows, or exactly `size` when that is known. */
function grown<T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(
  array: T,
  size: number,
  exact = false,
): T {
  if (size <= array.length) return array;
  const next = new (array.constructor as new (length: number) => T)(exact ? size : Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

export class ListingTable {
  private readonly ids: string[] = [];
  private readonly names: Array<string | null> = [];
  private readonly descriptions: string[] = [];
  private readonly tagLists: Array<readonly string[]> = [];
  private flags = new Uint8Array(1024);
  private health = new Uint8Array(1024);
  /** Each slot's seller address as 20 bytes (an EVM address), else its slot is in otherPayTo. */
  private payToBytes = new Uint8Array(1024 * ADDRESS_BYTES);
  private readonly otherPayTo = new Map<number, string>();
  private prices = new Float64Array(1024);
  private calls = new Float64Array(1024);
  /** The resource, declared fields and extensions, hashed: a change of any is a change of the indexed text. */
  private resourceKeys = new Uint32Array(1024);
  /** The resource's host, hashed: a brand's listings at the same origin are its owner's. */
  private originKeys = new Uint32Array(1024);
  private expiries = new Float64Array(1024);
  private listedAts = new Float64Array(1024);
  private readonly extensionKeys: string[] = [];
  /** The declared fields of listings whose description is terse (the only ones the model reads them for: listingText). */
  private readonly terseDeclared = new Map<number, string>();
  private readonly sharedStrings = new Map<string, string>();
  /** The brand registry's version each slot's look-alike check was made at (NOT_CHECKED: never). */
  private claimVersions = new Int32Array(1024);
  /** Only the slots that copy a brand. */
  private readonly claims = new Map<number, BrandClaim>();
  private readonly sharedTags = new Map<string, readonly string[]>();
  private readonly slotOf = new Map<string, number>();
  private dead = 0;

  /** Live listings. */
  get size(): number {
    return this.slotOf.size;
  }

  /** Slots ever taken (live and dead). */
  get slots(): number {
    return this.ids.length;
  }

  get deadSlots(): number {
    return this.dead;
  }

  /** The live slot of a listing. */
  slot(id: string): number | undefined {
    return this.slotOf.get(id);
  }

  isLive(slot: number): boolean {
    return (this.flags[slot]! & ALIVE) !== 0;
  }

  /** Room for `slots` listings in every column, made at once. */
  reserve(slots: number): void {
    this.growColumns(slots, true);
  }

  /** A new slot for a listing (the caller has removed any earlier one). */
  /** `terse`: the description is too short for the model alone (text.ts isTerse): the declared fields are kept for listingText. */
  add(doc: SearchDocument, modelVector: boolean, isStuffed = false, terse = false): number {
    const slot = this.ids.length;
    this.growColumns(slot + 1, false);
    this.ids.push(doc.id);
    this.names.push(doc.serviceName);
    this.descriptions.push(doc.description);
    this.tagLists.push(this.sharedTagList(doc.tags));
    this.extensionKeys.push(this.shared(doc.extensions ?? ""));
    if (terse && doc.declared) this.terseDeclared.set(slot, doc.declared);
    this.resourceKeys[slot] = hashText(otherText(doc));
    this.originKeys[slot] = hashText(originOf(doc.resource));
    this.listedAts[slot] = doc.listedAt;
    this.flags[slot] = ALIVE | (modelVector ? MODEL_VECTOR : 0) | (isStuffed ? STUFFED : 0);
    this.setFacts(slot, doc);
    this.slotOf.set(doc.id, slot);
    return slot;
  }

  /** A listing's ranking facts (health, ownership, usage, price, seller), its text unchanged. */
  setFacts(slot: number, doc: SearchDocument): void {
    this.flags[slot] =
      (this.flags[slot]! & ~(VERIFIED | INDEXED | SEED)) |
      (doc.verified ? VERIFIED : 0) |
      (doc.source === "indexed" ? INDEXED : 0) |
      (doc.seed ? SEED : 0);
    this.expiries[slot] = doc.expiresAt ?? Infinity;
    this.health[slot] = HEALTH_CODE.get(doc.health) ?? 0;
    this.setPayTo(slot, doc.payTo);
    this.prices[slot] = doc.priceMicros;
    this.calls[slot] = doc.calls30d;
    this.claimVersions[slot] = NOT_CHECKED;
  }

  kill(slot: number): void {
    const id = this.ids[slot]!;
    this.slotOf.delete(id);
    this.flags[slot] = 0;
    this.ids[slot] = "";
    this.names[slot] = null;
    this.descriptions[slot] = "";
    this.extensionKeys[slot] = "";
    this.terseDeclared.delete(slot);
    this.claims.delete(slot);
    this.otherPayTo.delete(slot);
    this.dead++;
  }

  id(slot: number): string {
    return this.ids[slot]!;
  }

  name(slot: number): string | null {
    return this.names[slot]!;
  }

  description(slot: number): string {
    return this.descriptions[slot]!;
  }

  /** The declared fields of a listing with a terse description (else undefined). */
  declaredOfTerse(slot: number): string | undefined {
    return this.terseDeclared.get(slot);
  }

  /** The seller's address, in lower case. */
  payTo(slot: number): string {
    const other = this.otherPayTo.get(slot);
    if (other !== undefined) return other;
    let out = "0x";
    for (let i = slot * ADDRESS_BYTES; i < (slot + 1) * ADDRESS_BYTES; i++) out += HEX[this.payToBytes[i]!];
    return out;
  }

  priceMicros(slot: number): number {
    return this.prices[slot]!;
  }

  verified(slot: number): boolean {
    return (this.flags[slot]! & VERIFIED) !== 0;
  }

  trust(slot: number): TrustFacts {
    return {
      health: HEALTH[this.health[slot]!]!,
      verified: this.verified(slot),
      calls30d: this.calls[slot]!,
      indexed: this.indexed(slot),
    };
  }

  indexed(slot: number): boolean {
    return (this.flags[slot]! & INDEXED) !== 0;
  }

  isStuffed(slot: number): boolean {
    return (this.flags[slot]! & STUFFED) !== 0;
  }

  listedAt(slot: number): number {
    return this.listedAts[slot]!;
  }

  originKey(slot: number): number {
    return this.originKeys[slot]!;
  }

  /**
   * The catalog view's own filters (source, seed rows, an extension, expiry) as a test of a slot,
   * prepared once per search, so the engine cuts its candidates from the rows the view shows.
   */
  viewTest(view: {
    source?: "listed" | "indexed" | undefined;
    includeSeed?: boolean | undefined;
    extension?: string | undefined;
    at?: number | undefined;
  }) {
    const { source, includeSeed, extension, at } = view;
    const wanted = source === undefined ? -1 : source === "indexed" ? INDEXED : 0;
    return (slot: number) =>
      (wanted === -1 || (this.flags[slot]! & INDEXED) === wanted) &&
      (includeSeed !== false || (this.flags[slot]! & SEED) === 0) &&
      (extension === undefined || this.extensionKeys[slot]!.split(",").includes(extension)) &&
      (at === undefined || this.expiries[slot]! > at);
  }

  /** Every tag given is among the listing's (tags already lower case). */
  hasTags(slot: number, tags: string[]): boolean {
    const own = this.tagLists[slot]!;
    return tags.every((tag) => own.some((mine) => mine.toLowerCase() === tag));
  }

  /**
   * The filter as a test of a slot, prepared once per search: a search calls it for every listing it
   * scans (up to 12,000), and a seller's address is then compared as bytes, not rebuilt as text.
   */
  trustTest(filter: TrustFilter): (slot: number) => boolean {
    const payTo = filter.payTo?.toLowerCase();
    let bytes: Uint8Array | undefined;
    if (payTo !== undefined && EVM_ADDRESS.test(payTo)) writeAddress(payTo, (bytes = new Uint8Array(ADDRESS_BYTES)), 0);
    // A health status the table does not know matches nothing.
    const health = filter.health === undefined ? undefined : (HEALTH_CODE.get(filter.health) ?? -1);
    const { verified, minCalls } = filter;
    return (slot) =>
      (payTo === undefined || this.paysTo(slot, payTo, bytes)) &&
      (health === undefined || this.health[slot] === health) &&
      (!verified || this.verified(slot)) &&
      (minCalls === undefined || this.calls[slot]! >= minCalls);
  }

  /** Whether a new version of the listing changes its indexed text (else setFacts is enough). */
  textChanged(slot: number, doc: SearchDocument): boolean {
    const tags = this.tagLists[slot]!;
    return (
      this.names[slot] !== doc.serviceName ||
      this.descriptions[slot] !== doc.description ||
      this.resourceKeys[slot] !== hashText(otherText(doc)) ||
      tags.length !== doc.tags.length ||
      tags.some((tag, i) => tag !== doc.tags[i])
    );
  }

  hasModelVector(slot: number): boolean {
    return (this.flags[slot]! & MODEL_VECTOR) !== 0;
  }

  markModelVector(slot: number): void {
    this.flags[slot]! |= MODEL_VECTOR;
  }

  /** The look-alike check of a slot, when it was made at `version` of the brand registry. */
  claimAt(slot: number, version: number): { claim: BrandClaim | undefined } | undefined {
    return this.claimVersions[slot] === version ? { claim: this.claims.get(slot) } : undefined;
  }

  setClaim(slot: number, claim: BrandClaim | undefined, version: number): void {
    if (claim) this.claims.set(slot, claim);
    else this.claims.delete(slot);
    this.claimVersions[slot] = version;
  }

  private growColumns(size: number, exact: boolean): void {
    this.flags = grown(this.flags, size, exact);
    this.health = grown(this.health, size, exact);
    this.payToBytes = grown(this.payToBytes, size * ADDRESS_BYTES, exact);
    this.prices = grown(this.prices, size, exact);
    this.calls = grown(this.calls, size, exact);
    this.resourceKeys = grown(this.resourceKeys, size, exact);
    this.originKeys = grown(this.originKeys, size, exact);
    this.expiries = grown(this.expiries, size, exact);
    this.listedAts = grown(this.listedAts, size, exact);
    this.claimVersions = grown(this.claimVersions, size, exact);
  }

  private setPayTo(slot: number, payTo: string): void {
    if (!EVM_ADDRESS.test(payTo)) {
      this.otherPayTo.set(slot, payTo.toLowerCase());
      return;
    }
    this.otherPayTo.delete(slot);
    writeAddress(payTo, this.payToBytes, slot * ADDRESS_BYTES);
  }

  /** Whether the slot's seller is `payTo` (lower case; `bytes` its 20 bytes when it is an EVM address). */
  private paysTo(slot: number, payTo: string, bytes: Uint8Array | undefined): boolean {
    const other = this.otherPayTo.get(slot);
    if (other !== undefined || !bytes) return other === payTo;
    const offset = slot * ADDRESS_BYTES;
    for (let i = 0; i < ADDRESS_BYTES; i++) if (this.payToBytes[offset + i] !== bytes[i]) return false;
    return true;
  }

  /** One copy of each distinct short string (extension keys: nearly every listing has "" or "bazaar"). */
  private shared(text: string): string {
    let out = this.sharedStrings.get(text);
    if (out === undefined) this.sharedStrings.set(text, (out = text));
    return out;
  }

  /** Tag lists are shared between the listings that have the same (a seller lists many). */
  private sharedTagList(tags: string[]): readonly string[] {
    const key = tags.join("\n");
    let shared = this.sharedTags.get(key);
    if (!shared) this.sharedTags.set(key, (shared = Object.freeze([...tags])));
    return shared;
  }
}

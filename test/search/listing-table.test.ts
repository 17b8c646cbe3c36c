// The engine's listing columns: a seller's address kept as bytes still reads back and filters as the
// address it was (whatever its case), another chain's address is kept as text, and a dead slot
// forgets its listing.
import { describe, expect, it } from "vitest";
import { ListingTable } from "../../src/search/listing-table.js";
import type { SearchDocument } from "../../src/search/types.js";

const EVM = "0xAbCdEf0123456789aBcDeF0123456789ABCDEF01";
const SOLANA = "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV";

const doc = (id: string, payTo: string, extra: Partial<SearchDocument> = {}): SearchDocument => ({
  id,
  serviceName: `Service ${id}`,
  description: `What ${id} does.`,
  resource: `https://${id}.example/api`,
  tags: ["Weather", "forecast"],
  payTo,
  priceMicros: 20_000,
  verified: false,
  health: "healthy",
  calls30d: 12,
  listedAt: 0,
  ...extra,
});

describe("ListingTable", () => {
  it("reads an EVM address back in lower case and filters on it in any case", () => {
    const table = new ListingTable();
    const slot = table.add(doc("a", EVM), false);
    expect(table.payTo(slot)).toBe(EVM.toLowerCase());
    expect(table.trustTest({ payTo: EVM.toUpperCase().replace("0X", "0x") })(slot)).toBe(true);
    expect(table.trustTest({ payTo: EVM.toLowerCase().replace(/1$/, "2") })(slot)).toBe(false);
  });

  it("keeps an address of another shape as text", () => {
    const table = new ListingTable();
    const slot = table.add(doc("b", SOLANA), false);
    expect(table.payTo(slot)).toBe(SOLANA.toLowerCase());
    expect(table.trustTest({ payTo: SOLANA })(slot)).toBe(true);
    table.setFacts(slot, doc("b", EVM));
    expect(table.payTo(slot)).toBe(EVM.toLowerCase());
    expect(table.trustTest({ payTo: SOLANA })(slot)).toBe(false);
    expect(table.trustTest({ payTo: EVM })(slot)).toBe(true);
  });

  it("holds the ranking facts and filters by them", () => {
    const table = new ListingTable();
    const slot = table.add(doc("c", EVM, { health: "unhealthy", verified: true, calls30d: 3 }), true);
    expect(table.trust(slot)).toEqual({ health: "unhealthy", verified: true, calls30d: 3, indexed: false });
    expect(table.hasModelVector(slot)).toBe(true);
    expect(table.hasTags(slot, ["weather"])).toBe(true);
    expect(table.hasTags(slot, ["weather", "rain"])).toBe(false);
    expect(table.trustTest({ health: "unhealthy", verified: true, minCalls: 3 })(slot)).toBe(true);
    expect(table.trustTest({ minCalls: 4 })(slot)).toBe(false);
    expect(table.textChanged(slot, doc("c", EVM))).toBe(false);
    expect(table.textChanged(slot, doc("c", EVM, { tags: ["weather"] }))).toBe(true);
    expect(table.textChanged(slot, doc("c", EVM, { resource: "https://c.example/v2" }))).toBe(true);
  });

  it("forgets a dead slot's listing and counts it dead", () => {
    const table = new ListingTable();
    const first = table.add(doc("d", EVM), false);
    table.kill(first);
    const second = table.add(doc("d", SOLANA), false);
    expect(second).not.toBe(first);
    expect(table.slot("d")).toBe(second);
    expect(table.isLive(first)).toBe(false);
    expect(table.description(first)).toBe("");
    expect({ size: table.size, slots: table.slots, dead: table.deadSlots }).toEqual({ size: 1, slots: 2, dead: 1 });
  });
});

// The catalog reads that seek behind offsets and rank searches class by class give exactly what a
// plain sort of every row would: checked against one, on both databases, across seek checkpoints
// (every 256 positions), with and without a shared catalog state (token), and for searches both
// with few matches (one query) and with many (counted per class, paged by slices).
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEW_MATCHES, SEEK_STRIDE } from "../../src/storage/catalog/catalog-reads.js";
import type { Listing } from "../../src/storage/listing/listing-store.js";
import { testDatabaseKinds } from "./databases.js";
import { at, listingInput, openStore, type StoreContext } from "./fixtures.js";

const ROWS = 700;
const NOW = at(0);

/** Which text a row carries where: the three rank classes of "zeta", and rows without it. */
function rowFor(i: number) {
  const input = listingInput({
    description: i % 3 === 0 ? `Zeta service ${i}` : `Plain service ${i}`,
    resource: i % 3 === 1 ? `https://zeta${i}.example.com/api` : `https://seller${i}.example.com/api`,
  });
  return {
    ...input,
    sellerPayTo: getAddress(input.sellerPayTo),
    priceAtomic: "30000",
    inputSchema: undefined,
    serviceName: i % 3 === 2 && i % 2 === 0 ? "ZETA tools" : null,
    state: i % 41 === 0 ? "failed" : "active",
    leftoverSeed: i % 150 === 0,
    // Some rows share a listedAt: the id breaks the tie.
    listedAt: at(-ROWS + Math.floor(i / 2)),
    expiresAt: i % 53 === 0 ? at(-1) : at(10_000),
  };
}

const newestFirst = (a: Listing, b: Listing) =>
  b.listedAt.getTime() - a.listedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

describe.each(testDatabaseKinds())("catalog reads on $kind", (kind) => {
  let ctx: StoreContext;
  let visible: Listing[];

  beforeAll(async () => {
    ctx = await openStore(kind);
    await ctx.db.prisma.listing.createMany({ data: Array.from({ length: ROWS }, (_, i) => rowFor(i)) });
    const all = await ctx.db.prisma.listing.findMany();
    visible = all.filter((row) => row.state === "active" && row.expiresAt > NOW).sort(newestFirst);
  }, 60_000);
  afterAll(() => ctx?.close());

  const ids = (rows: Listing[]) => rows.map((row) => row.id);

  it.each([
    ["foreign", false],
    ["with seed", true],
  ])("pages the %s view by seeks exactly as a sort of every row, at every offset", async (_name, includeSeed) => {
    const expected = visible.filter((row) => includeSeed || !row.leftoverSeed);
    expect(expected.length).toBeGreaterThan(2 * SEEK_STRIDE);
    const token = `state-${includeSeed}`;
    for (const offset of [
      0,
      1,
      255,
      256,
      257,
      300,
      511,
      512,
      513,
      expected.length - 20,
      expected.length - 1,
      expected.length,
      expected.length + 5,
    ]) {
      for (const limit of [1, 20, 200]) {
        for (const shared of [token, undefined]) {
          const page = await ctx.store.catalog.page({ includeSeed }, { limit, offset, now: NOW, token: shared });
          expect(page.total).toBe(expected.length);
          expect(ids(page.rows), `offset ${offset} limit ${limit} ${shared ?? "no token"}`).toEqual(
            ids(expected.slice(offset, offset + limit)),
          );
        }
      }
    }
  });

  it("ranks a search matching many rows class by class, newest first in each, on every page", async () => {
    const matchClass = (row: Listing) =>
      /zeta/i.test(row.description)
        ? 0
        : /zeta/i.test(row.resource)
          ? 1
          : /zeta/i.test(`${row.sellerPayTo} ${row.serviceName ?? ""} ${row.tags ?? ""}`)
            ? 2
            : 3;
    const expected = visible
      .filter((row) => !row.leftoverSeed && matchClass(row) < 3)
      .sort((a, b) => matchClass(a) - matchClass(b) || newestFirst(a, b));
    expect(expected.length).toBeGreaterThan(FEW_MATCHES);
    expect(new Set(expected.map(matchClass))).toEqual(new Set([0, 1, 2]));
    for (const shared of ["state", undefined]) {
      const seen: string[] = [];
      for (let offset = 0; offset < expected.length; offset += 37) {
        const page = await ctx.store.catalog.search({ includeSeed: false }, "zeta", {
          limit: 37,
          offset,
          now: NOW,
          token: shared,
        });
        expect(page.total).toBe(expected.length);
        seen.push(...ids(page.rows));
      }
      expect(seen).toEqual(ids(expected));
    }
  });

  it("answers the same after the hourly upkeep merged the search index and refreshed statistics", async () => {
    const segments = async () =>
      Number(
        (
          await ctx.db.prisma.$queryRawUnsafe<{ n: unknown }[]>(
            `SELECT COUNT(DISTINCT "segid") AS n FROM "ListingSearch_idx"`,
          )
        )[0]?.n,
      );
    // Listings arriving one by one leave the search index in many small segments.
    for (let i = 0; i < 5; i++)
      await ctx.store.createListing(listingInput({ description: `Late zeta arrival ${i}` }), at(-1));
    if (kind.kind === "sqlite") expect(await segments()).toBeGreaterThan(1);
    const before = await ctx.store.catalog.search({ includeSeed: false }, "zeta", {
      limit: 200,
      offset: 100,
      now: NOW,
    });
    await ctx.store.tidyReadPaths();
    if (kind.kind === "sqlite") expect(await segments()).toBe(1);
    expect(
      await ctx.store.catalog.search({ includeSeed: false }, "zeta", { limit: 200, offset: 100, now: NOW }),
    ).toEqual(before);
  });

  it("pages a word every row matches by walking the newest-first index, seeking deep pages too", async () => {
    const expected = visible.filter((row) => !row.leftoverSeed);
    for (const offset of [0, 63, 64, 65, 200, 400, expected.length - 7]) {
      for (const shared of ["common", undefined]) {
        const page = await ctx.store.catalog.search({ includeSeed: false }, "SERVICE", {
          limit: 20,
          offset,
          now: NOW,
          token: shared,
        });
        expect(page.total).toBe(expected.length);
        expect(ids(page.rows), `offset ${offset} ${shared ?? "no token"}`).toEqual(
          ids(expected.slice(offset, offset + 20)),
        );
      }
    }
  });

  it("finds, ranks and pages a search with few matches from one query, the same way", async () => {
    const expected = visible
      .filter((row) => !row.leftoverSeed && /service 1\d\b/.test(row.description))
      .sort(newestFirst);
    expect(expected.length).toBeGreaterThan(3);
    const page = await ctx.store.catalog.search({ includeSeed: false }, "service 1", {
      limit: 500,
      offset: 0,
      now: NOW,
      token: "few",
    });
    const all = visible.filter((row) => !row.leftoverSeed && /service 1/i.test(row.description)).sort(newestFirst);
    expect(all.length).toBeLessThanOrEqual(FEW_MATCHES);
    expect(ids(page.rows)).toEqual(ids(all));
    const second = await ctx.store.catalog.search({ includeSeed: false }, "service 1", {
      limit: 3,
      offset: 3,
      now: NOW,
      token: "few",
    });
    expect(ids(second.rows)).toEqual(ids(all.slice(3, 6)));
    expect(second.total).toBe(all.length);
  });
});

// Every catalog read walks an index in the order it returns, on both databases: no full scan of
// Listing and no sort of the catalog (only a page's own rows may be sorted). SQLite names its
// index in the SQL; PostgreSQL picks it from the statistics the migrations and maintenance keep.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import {
  idsInViewSql,
  inViewByIdsSql,
  keyAtSql,
  listedAfterSql,
  pageSql,
  sortedKeyAtSql,
  sortedPageSql,
  viewCountSql,
  valueFreePlan,
  type CatalogView,
} from "../../src/storage/catalog/catalog-sql.js";
import {
  matchCountsSql,
  matchRowsSql,
  matchPageSql,
  sortedMatchPageSql,
} from "../../src/storage/catalog/catalog-match-sql.js";
import { changedSinceSql } from "../../src/search/embedding-store.js";
import { catalogStampSql } from "../../src/storage/listing/listing-store.js";
import { refreshPlannerStatistics } from "../../src/storage/migrate.js";
import { isTrigramIndex, LISTING_INDEXES_SQL } from "../../src/storage/search-index.js";
import { parseDatabaseUrl, pgSessionOptions } from "../../src/storage/connection.js";
import { insertListingRows, type ListingRow } from "../../tools/bench/seed-listings.js";
import { planText, testDatabaseKinds } from "./databases.js";
import { at, listingInput, openStore, type StoreContext } from "./fixtures.js";

const ROWS = 20_000;
const NOW = at(0);
const SOME_ID = "ffffffff-ffff-4fff-8fff-ffffffffffff";
const SELLER = getAddress(`0x${"7".repeat(40)}`);

describe.each(testDatabaseKinds())("catalog read plans on $kind", (kind) => {
  let ctx: StoreContext;

  const explain = async (sql: Prisma.Sql): Promise<string> =>
    planText(
      kind.kind === "sqlite"
        ? await ctx.db.prisma.$queryRawUnsafe(`EXPLAIN QUERY PLAN ${sql.sql}`, ...sql.values)
        : await ctx.db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(`EXPLAIN ${sql.text}`, ...sql.values),
    );

  /**
   * VACUUM marks pages all-visible only when no transaction of the database still open could see
   * their old versions; another test's transaction in the same database holds that back, and the
   * planner then prices index-only scans (the counts) above a sequential scan. Vacuumed again until
   * every page is all-visible, as the service's maintenance would get it in time.
   */
  const vacuumUntilAllVisible = async () => {
    for (let attempt = 0; ; attempt++) {
      await ctx.db.prisma.$executeRawUnsafe(`VACUUM ANALYZE "Listing"`);
      const [pages] = await ctx.db.prisma.$queryRawUnsafe<Array<{ all: number; visible: number }>>(
        `SELECT relpages AS "all", relallvisible AS "visible" FROM pg_class WHERE oid = '"Listing"'::regclass`,
      );
      if (pages!.visible >= pages!.all || attempt === 120) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };

  beforeAll(async () => {
    ctx = await openStore(kind);
    // A realistic catalog: most rows live and foreign; some failed, expired or seed; one seller with many listings.
    // Written through the driver: Prisma's createMany spent about 1.3 ms of CPU a row (40 s a database).
    const writtenAt = new Date();
    await insertListingRows(
      ctx.test.url,
      Array.from({ length: ROWS }, (_, i): ListingRow => {
        const { resource, method, priceUsdc, description, sellerPayTo, network } = listingInput({
          description: `${["weather", "quote", "translate"][i % 3]} service ${i}`,
          ...(i % 100 === 0 ? { sellerPayTo: SELLER } : {}),
        });
        return {
          id: randomUUID(),
          resource,
          method,
          priceUsdc,
          description,
          sellerPayTo: getAddress(sellerPayTo),
          network,
          priceAtomic: String(10_000 + (i % 50) * 1_000),
          priceMicros: BigInt(10_000 + (i % 50) * 1_000),
          healthStatus: ["healthy", "unhealthy", "drifted"][i % 3]!,
          ownerVerified: i % 4 === 0,
          calls30d: i % 23,
          uptime7d: (i % 21) / 20,
          state: i % 97 === 0 ? "failed" : "active",
          leftoverSeed: i % 1_000 === 0,
          extensionKeys: i % 10 === 0 ? "bazaar" : "",
          listedAt: at(-ROWS + i),
          expiresAt: i % 89 === 0 ? at(-1) : at(10_000 + i),
          updatedAt: writtenAt,
        };
      }),
    );
    // As the service does after migrating and from its maintenance.
    await refreshPlannerStatistics(parseDatabaseUrl(ctx.test.url));
    if (kind.kind === "postgres") await vacuumUntilAllVisible();
  }, 120_000);
  afterAll(() => ctx?.close());

  const views: Array<[string, CatalogView, string]> = [
    ["foreign", { includeSeed: false }, "Listing_visible_idx"],
    ["with seed", { includeSeed: true }, "Listing_visible_idx"],
    ["one seller", { includeSeed: false, payTo: SELLER }, "Listing_payTo_idx"],
    ["with extensions.bazaar", { includeSeed: false, extensionKey: "bazaar" }, "Listing_extensions_idx"],
    // The trust filters are columns of the newest-first index: filtered on the index alone.
    [
      "healthy, verified, with sales",
      { includeSeed: false, health: "healthy", verified: true, minCalls: 1 },
      "Listing_visible_idx",
    ],
    // The web page's healthy-first order reads each health group, this one too.
    ["not re-probed yet", { includeSeed: false, health: "unknown" }, "Listing_visible_idx"],
  ];

  /**
   * The read walks `index` in its order. On PostgreSQL a filter's own index (a seller's listings, the
   * items with an extension) may instead be read as a bitmap and its matches sorted: the planner does
   * that when the filter is selective, and its cost is bounded by the filter's matches.
   */
  const walks = (plan: string, index: string) => {
    if (kind.kind === "sqlite") {
      expect(plan).toMatch(new RegExp(`USING (COVERING )?INDEX ${index}\\b`));
      expect(plan).not.toMatch(/SCAN l\b|SCAN Listing\b/);
    } else {
      const bitmapAllowed = index !== "Listing_visible_idx";
      expect(plan).toMatch(
        new RegExp(
          `Index (Only )?Scan( Backward)? using "${index}"${bitmapAllowed ? `|Bitmap Index Scan on "${index}"` : ""}`,
        ),
      );
      expect(plan).not.toMatch(/Seq Scan/);
    }
  };
  /** Sort nodes of a plan (SQLite's temporary b-trees for ORDER BY). */
  const sorts = (plan: string) =>
    (kind.kind === "sqlite" ? plan.match(/USE TEMP B-TREE FOR ORDER BY/g) : plan.match(/(^|-> +)Sort +\(/gm))?.length ??
    0;
  /** Only the page's own rows (the outer query) may be sorted, never the walk; on PostgreSQL a filter's bitmap adds one. */
  const sortsOnlyThePage = (plan: string, index: string) =>
    expect(sorts(plan)).toBeLessThanOrEqual(kind.kind === "postgres" && index !== "Listing_visible_idx" ? 2 : 1);

  it.each(views)(
    "%s: the count, a checkpoint step, a deep page and a feed walk %s's index",
    async (_name, view, index) => {
      const count = await explain(viewCountSql(kind.kind, view, NOW));
      // A count needs no order: PostgreSQL may count through whichever index covers the filter best.
      if (kind.kind === "sqlite") walks(count, index);
      else expect(count).toMatch(/Index (Only )?Scan using|Bitmap Index Scan on/);
      expect(count).not.toMatch(/Seq Scan|SCAN l\b|TEMP B-TREE|Sort\b/);
      const step = await explain(keyAtSql(kind.kind, view, NOW, { listedAt: at(-5_000), id: SOME_ID }, 256));
      walks(step, index);
      expect(sorts(step)).toBe(kind.kind === "postgres" && index !== "Listing_visible_idx" ? sorts(step) : 0);
      const page = await explain(
        pageSql(kind.kind, view, NOW, { from: { listedAt: at(-5_000), id: SOME_ID }, skip: 255, limit: 20 }),
      );
      walks(page, index);
      sortsOnlyThePage(page, index);
      const feed = await explain(listedAfterSql(kind.kind, view, NOW, at(-300), 50));
      walks(feed, index);
      sortsOnlyThePage(feed, index);
    },
  );

  /** PostgreSQL's generic plan of a statement (planned without its values), as the read pool's one-plan connections run it. */
  const explainGeneric = async (sql: Prisma.Sql): Promise<string> => {
    const target = parseDatabaseUrl(ctx.test.url) as Extract<ReturnType<typeof parseDatabaseUrl>, { kind: "postgres" }>;
    const client = new pg.Client({
      connectionString: target.connectionString,
      options: `${pgSessionOptions(target)} -c plan_cache_mode=force_generic_plan`,
    });
    await client.connect();
    const literal = (value: unknown) =>
      value instanceof Date
        ? `'${value.toISOString()}'`
        : typeof value === "string"
          ? `'${value.replaceAll("'", "''")}'`
          : String(value);
    try {
      await client.query(`PREPARE walk AS ${sql.text}`);
      return planText(
        (await client.query<Record<string, unknown>>(`EXPLAIN EXECUTE walk(${sql.values.map(literal).join(", ")})`))
          .rows,
      );
    } finally {
      await client.end();
    }
  };

  it
    .runIf(kind.kind === "postgres")
    .each([
      ...views.filter(([, view]) => valueFreePlan(view)),
      ["verified, cheapest first", { includeSeed: false, verified: true, sort: "price" }, "Listing_price_idx"],
      ["most sold first", { includeSeed: false, sort: "popular" }, "Listing_popular_idx"],
    ] satisfies Array<[string, CatalogView, string]>)(
    "%s: planned once without its values (PostgreSQL's generic plan), a page and a checkpoint step still walk %s",
    async (_name, view, index) => {
      expect(valueFreePlan(view)).toBe(true);
      const from = { listedAt: at(-5_000), id: SOME_ID, sortValue: view.sort === "price" ? 25_000n : 3 };
      const [page, step] = view.sort
        ? [
            sortedPageSql("postgres", view, NOW, { from, skip: 255, limit: 20 }),
            sortedKeyAtSql("postgres", view, NOW, from, 256),
          ]
        : [pageSql("postgres", view, NOW, { from, skip: 255, limit: 20 }), keyAtSql("postgres", view, NOW, from, 256)];
      for (const plan of [await explainGeneric(page), await explainGeneric(step)]) {
        walks(plan, index);
        sortsOnlyThePage(plan, index);
      }
    },
  );

  it("the catalog stamp (version, next expiry) is index seeks", async () => {
    const plan = await explain(catalogStampSql(NOW));
    if (kind.kind === "sqlite") expect(plan).toMatch(/USING COVERING INDEX Listing_state_leftoverSeed_expiresAt_idx/);
    else expect(plan).toMatch(/Index Only Scan using "Listing_state_leftoverSeed_expiresAt_idx"/);
    expect(plan).not.toMatch(/Seq Scan|SCAN (l|Listing)\b|TEMP B-TREE|Sort\b/);
  });

  it("the search engine's look for changes walks Listing_updatedAt_idx from its moment: at rest it reads no row", async () => {
    const writtenAt = (await ctx.db.prisma.listing.findFirstOrThrow({ select: { updatedAt: true } })).updatedAt;
    for (const plan of [
      // The follow job's poll at rest: nothing changed since its last look.
      await explain(changedSinceSql({ since: new Date(writtenAt.getTime() + 1000) })),
      // A later page of many changes, after the last row of the page before.
      await explain(changedSinceSql({ after: { updatedAt: writtenAt, id: SOME_ID } })),
    ]) {
      if (kind.kind === "sqlite") expect(plan).toMatch(/SEARCH l USING INDEX Listing_updatedAt_idx \(/);
      else expect(plan).toMatch(/Index Scan using "Listing_updatedAt_idx" on "Listing" l/);
      expect(plan).not.toMatch(/Seq Scan on "Listing"|SCAN (l|Listing)\b|TEMP B-TREE|Sort\b/);
    }
  });

  it("a ranked search's rows are looked up by id, not found by walking every live row", async () => {
    const ids = Array.from({ length: 84 }, (_, i) => `${String(i).padStart(8, "0")}-0000-4000-8000-000000000000`);
    const filtered: CatalogView = { includeSeed: false, verified: true, minPriceMicros: 1 };
    for (const plan of [
      await explain(idsInViewSql(kind.kind, { includeSeed: false }, NOW, ids)),
      await explain(inViewByIdsSql(kind.kind, { includeSeed: false }, NOW, ids.slice(0, 20))),
      await explain(idsInViewSql(kind.kind, filtered, NOW, ids)),
    ]) {
      if (kind.kind === "sqlite") expect(plan).toMatch(/SEARCH l USING INDEX sqlite_autoindex_Listing_1 \(id=\?\)/);
      else expect(plan).toMatch(/Index Scan using "Listing_pkey"|Bitmap Index Scan on "Listing_pkey"/);
      expect(plan).not.toMatch(/Seq Scan|SCAN (l|Listing)\b|state_leftoverSeed_expiresAt/);
    }
  });

  it("a search finds its candidates by the search index and walks the catalog only newest first", async () => {
    const counts = await explain(matchCountsSql(kind.kind, { includeSeed: false }, NOW, "service 1234"));
    const keys = await explain(matchRowsSql(kind.kind, { includeSeed: false }, NOW, "service 1234", 201));
    const candidates = await explain(
      matchPageSql(kind.kind, { includeSeed: false }, NOW, {
        text: "service 1234",
        matchClass: 0,
        walk: false,
        skip: 0,
        limit: 20,
      }),
    );
    const walk = await explain(
      matchPageSql(kind.kind, { includeSeed: false }, NOW, {
        text: "service",
        matchClass: 0,
        walk: true,
        skip: 0,
        limit: 20,
      }),
    );
    if (kind.kind === "sqlite") {
      for (const plan of [counts, keys, candidates]) {
        expect(plan).toMatch(/SCAN s VIRTUAL TABLE INDEX/);
        expect(plan).toMatch(/SEARCH l USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      }
      walks(walk, "Listing_visible_idx");
      sortsOnlyThePage(walk, "Listing_visible_idx");
    } else {
      // PostgreSQL chooses per text from the trigram statistics: a selective text through the GIN
      // indexes, a common word's page by walking the newest-first index until the page is full. (A
      // common word's count reads a large share of the catalog whatever the plan; PostgreSQL then
      // scans the table, once per catalog state: see catalog-reads.ts.)
      for (const plan of [counts, keys, candidates])
        expect(plan).toMatch(/Bitmap Index Scan on "Listing_description_trgm_idx"/);
      expect(walk).toMatch(/Index (Only )?Scan( Backward)? using "Listing_visible_idx"/);
      expect(`${counts}\n${keys}\n${candidates}\n${walk}`).not.toMatch(/Seq Scan/);
    }
  });

  it.runIf(kind.kind === "postgres")(
    "a new listing is in the trigram indexes at once: no pending list for the next search to read",
    async () => {
      const input = listingInput({ description: "freshly listed weather service" });
      await ctx.db.prisma.listing.create({
        data: {
          ...input,
          sellerPayTo: getAddress(input.sellerPayTo),
          inputSchema: undefined,
          priceAtomic: "30000",
          priceMicros: 30_000n,
          state: "active",
          listedAt: NOW,
          expiresAt: at(10_000),
        },
      });
      const trigram = (await ctx.db.prisma.$queryRawUnsafe<{ name: string; definition: string }[]>(LISTING_INDEXES_SQL))
        .filter(isTrigramIndex)
        .map((index) => index.name);
      const pending = await ctx.db.prisma.$queryRawUnsafe<{ name: string; pages: number }[]>(
        `SELECT name, gin_clean_pending_list(quote_ident(name)::regclass)::int AS pages FROM unnest($1::text[]) AS name`,
        trigram,
      );
      expect(pending).toHaveLength(5);
      expect(pending.filter((index) => index.pages > 0)).toEqual([]);
    },
  );

  it.each([
    ["popular", "Listing_popular_idx"],
    ["price", "Listing_price_idx"],
    ["priceDesc", "Listing_price_idx"],
    ["uptime", "Listing_uptime_idx"],
  ] as const)("sort=%s: a deep page and a search walk %s in its order, sorting only the page", async (sort, index) => {
    for (const view of [
      { includeSeed: false, sort },
      { includeSeed: false, sort, health: "healthy" as const },
    ]) {
      const page = await explain(sortedPageSql(kind.kind, view, NOW, { skip: 5_000, limit: 20 }));
      walks(page, index);
      sortsOnlyThePage(page, index);
      // A deep page seeks to a checkpoint key of the sorted order, and the next checkpoint is stepped to the same way.
      const from = {
        listedAt: at(-100),
        id: SOME_ID,
        sortValue: sort === "popular" ? 3 : sort === "uptime" ? 0.65 : 25_000n,
      };
      const seeked = await explain(sortedPageSql(kind.kind, view, NOW, { from, skip: 100, limit: 20 }));
      walks(seeked, index);
      sortsOnlyThePage(seeked, index);
      const checkpoint = await explain(sortedKeyAtSql(kind.kind, view, NOW, from, 256));
      walks(checkpoint, index);
      expect(checkpoint).not.toMatch(/TEMP B-TREE|Sort\b/);
      const search = await explain(sortedMatchPageSql(kind.kind, view, NOW, { text: "service", skip: 200, limit: 20 }));
      walks(search, index);
      sortsOnlyThePage(search, index);
    }
  });

  it.each([
    ["popular", "Listing_popular_idx"],
    ["priceDesc", "Listing_price_idx"],
    ["uptime", "Listing_uptime_idx"],
  ] as const)(
    "sort=%s with source=all walks %s once per source, merging at most a page's worth of each",
    async (sort, index) => {
      const view = { includeSeed: false, sort, source: "all" as const };
      const from = {
        listedAt: at(-100),
        id: SOME_ID,
        sortValue: sort === "popular" ? 3 : sort === "uptime" ? 0.65 : 25_000n,
      };
      for (const sql of [
        sortedPageSql(kind.kind, view, NOW, { from, skip: 100, limit: 20 }),
        sortedKeyAtSql(kind.kind, view, NOW, from, 256),
      ]) {
        const plan = await explain(sql);
        if (kind.kind === "sqlite") {
          expect(plan.match(new RegExp(`SEARCH l USING COVERING INDEX ${index} \\(state=\\? AND`, "g"))?.length).toBe(
            2,
          );
          // A "SCAN l" may only be of the merged rows (the co-routine l), never of the table.
          expect(plan.match(/SCAN l\b/g)?.length ?? 0).toBe(/CO-ROUTINE l\b/.test(plan) ? 1 : 0);
          expect(plan).not.toMatch(/SCAN Listing\b/);
        } else {
          walks(plan, index);
          expect(plan.match(new RegExp(`Scan( Backward)? using "${index}"`, "g"))?.length).toBe(2);
        }
        // The two sides come in index order; only their bounded merge and the page's own rows are sorted.
        expect(sorts(plan)).toBeLessThanOrEqual(2);
      }
    },
  );
});

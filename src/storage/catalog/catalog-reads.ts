// Catalog pages, searches, feeds and counts whose cost does not grow with the catalog.
//
// - Offsets become keyset seeks: the key at every SEEK_STRIDE-th position of a view's newest-first
//   order is found once per catalog state, when a page first needs it, by stepping the index from
//   the nearest key already known; a page at offset o then seeks to key o / SEEK_STRIDE and steps at
//   most SEEK_STRIDE - 1 index entries. Totals are one index-only count per catalog state.
// - A search counts its matches per rank class once per catalog state; a page then reads only the
//   class slices it shows, each by the cheaper of two index paths (catalog-match-sql.ts matchPageSql).
// - "Catalog state" is the freshness token (version and next expiry, src/catalog/freshness.ts): a
//   write or an expiry changes it, so totals stay exact to the instant a listing expires. Without a
//   token nothing is cached (each call reads afresh).
import type { Prisma } from "../../../generated/prisma/sqlite/client.js";
import type { DatabaseKind } from "../connection.js";
import { toCount, toDate, type CatalogReader, type SqlRow } from "../catalog-reader.js";
import { DEFAULT_SORT, fullOrder, type SortFields } from "../../contract/catalog-sorts.js";
import { toListing } from "./listing-row.js";
import {
  keyAtSql,
  liveByIdSql,
  idsInViewSql,
  inViewByIdsSql,
  listedAfterSql,
  pageSql,
  rawCountSql,
  isSorted,
  valueFreePlan,
  sortedKeyAtSql,
  sortedPageSql,
  viewCountSql,
  type CatalogView,
  type SeekKey,
} from "./catalog-sql.js";
import {
  MATCH_CLASSES,
  matchKeyAtSql,
  matchRowsSql,
  rowsByKeySql,
  matchCountsSql,
  matchPageSql,
  hasTrigrams,
  sortedMatchPageSql,
} from "./catalog-match-sql.js";
import type { Listing, Page } from "../listing-types.js";
import type { StateMemo } from "./state-memo.js";

export type { CatalogView } from "./catalog-sql.js";

/** A search with at most this many matches is found, ranked and paged from one query. */
export const FEW_MATCHES = 200;

interface RankedMatch extends SortFields {
  key: unknown;
  matchClass: number;
  listedAt: number;
}

const newestFirst = fullOrder(DEFAULT_SORT);

/** Index entries a deep page steps over at most, after its seek. */
export const SEEK_STRIDE = 256;
/** Matches a deep page of a walked search class tests at most after its seek (each test reads a row). */
export const MATCH_SEEK_STRIDE = 64;

export interface PageRequest {
  limit: number;
  offset: number;
  now: Date;
  /** The catalog state the caller rendered for; reads of the same state share their counts and keys. */
  token?: string | undefined;
}

/** The few matches of a search (up to 200 keys) weigh this many totals or keys in the memo. */
const FEW_MATCHES_WEIGHT = 16;

/** The rows a view shows (not their order: a sorted view has the same totals). */
const viewKey = (view: CatalogView) =>
  JSON.stringify([
    view.includeSeed,
    view.payTo ?? "",
    view.extensionKey ?? "",
    view.health ?? "",
    view.verified ?? false,
    view.minCalls ?? 0,
    view.minPriceMicros ?? null,
    view.maxPriceMicros ?? null,
    view.tags ?? [],
    view.source ?? "listed",
  ]);

export class CatalogReads {
  /**
   * @param memo Totals, seek keys, match counts and few-match rankings per catalog state (the
   *   database's one memo, shared with the other reads keyed on the freshness token).
   */
  constructor(
    private readonly kind: DatabaseKind,
    private readonly reader: CatalogReader,
    private readonly memo: StateMemo,
  ) {}

  private isRemembered(token: string, key: string): boolean {
    return this.memo.has(token, key);
  }

  private remembered<T>(token: string | undefined, key: string, load: () => Promise<T>, weight = 1): Promise<T> {
    return this.memo.get(token, key, load, weight);
  }

  private viewTotal(view: CatalogView, now: Date, token: string | undefined): Promise<number> {
    return this.remembered(token, `total ${viewKey(view)}`, async () =>
      toCount((await this.reader.rows(viewCountSql(this.kind, view, now)))[0]?.total),
    );
  }

  /**
   * The key at position checkpoint * stride of an ordered walk (`walk` names it), stepped to from the
   * nearest earlier key known: `step(from, skip)` is the SQL of the key `skip` positions past `from`.
   */
  private checkpointKey(
    walk: string,
    token: string,
    checkpoint: number,
    stride: number,
    step: (from: SeekKey | undefined, skip: number) => Prisma.Sql,
    onePlan: boolean,
  ): Promise<SeekKey | undefined> {
    const keyName = (n: number) => `key ${walk} ${n}`;
    return this.remembered(token, keyName(checkpoint), async () => {
      let known = checkpoint - 1;
      while (known > 0 && !this.isRemembered(token, keyName(known))) known--;
      const from = known > 0 ? await this.checkpointKey(walk, token, known, stride, step, onePlan) : undefined;
      const [row] = await this.reader.rows(step(from, (checkpoint - known) * stride), { onePlan });
      if (!row) return undefined;
      const sortValue =
        row.sortValue === undefined
          ? undefined
          : typeof row.sortValue === "number"
            ? row.sortValue
            : BigInt(row.sortValue as bigint | string);
      return { listedAt: toDate(row.listedAt), id: String(row.id), sortValue };
    });
  }

  /** Where a walk of `offset` positions starts: the checkpoint key before it (with a token) and what is left to step. */
  private async seek(
    walk: string,
    token: string | undefined,
    offset: number,
    stride: number,
    step: (from: SeekKey | undefined, skip: number) => Prisma.Sql,
    onePlan = false,
  ): Promise<{ from: SeekKey | undefined; skip: number }> {
    const checkpoint = token === undefined ? 0 : Math.floor(offset / stride);
    const from = checkpoint > 0 ? await this.checkpointKey(walk, token!, checkpoint, stride, step, onePlan) : undefined;
    return { from, skip: offset - checkpoint * stride };
  }

  /** Newest first (listedAt desc, id desc). */
  async page(view: CatalogView, request: PageRequest): Promise<Page<Listing>> {
    const { now, token } = request;
    const total = await this.viewTotal(view, now, token);
    if (request.offset >= total || request.limit === 0) return { rows: [], total };
    const onePlan = valueFreePlan(view);
    if (isSorted(view)) {
      // Seeks like the newest-first order, on checkpoints of the sorted order's own keys.
      const walk = `${view.sort} ${viewKey(view)}`;
      const step = (at: SeekKey | undefined, count: number) => sortedKeyAtSql(this.kind, view, now, at, count);
      const { from, skip } = await this.seek(walk, token, request.offset, SEEK_STRIDE, step, onePlan);
      const rows = await this.reader.rows(sortedPageSql(this.kind, view, now, { from, skip, limit: request.limit }), {
        onePlan,
      });
      return { rows: rows.map(toListing), total };
    }
    const step = (at: SeekKey | undefined, count: number) => keyAtSql(this.kind, view, now, at, count);
    const { from, skip } = await this.seek(viewKey(view), token, request.offset, SEEK_STRIDE, step, onePlan);
    const rows = await this.reader.rows(pageSql(this.kind, view, now, { from, skip, limit: request.limit }), {
      onePlan,
    });
    return { rows: rows.map(toListing), total };
  }

  /**
   * Ranked: description matches, then resource, then seller address, service name or tags; newest
   * first within each. Empty text is the plain page.
   */
  async search(view: CatalogView, text: string, request: PageRequest): Promise<Page<Listing>> {
    if (text === "") return this.page(view, request);
    const { now, token } = request;
    // Most searches match a few rows: one query finds them all and ranks them, with the rows of the
    // page asked; a later page of the same state takes its rows by key from the remembered ranking.
    let firstPage: Listing[] | undefined;
    const few = await this.remembered(
      token,
      `few ${viewKey(view)} ${text}`,
      async () => {
        const { matches, rows } = await this.fewMatches(view, now, text, request);
        firstPage = rows;
        return matches;
      },
      FEW_MATCHES_WEIGHT,
    );
    if (few) {
      if (firstPage) return { rows: firstPage, total: few.length };
      const keys = this.inViewOrder(view, few)
        .slice(request.offset, request.offset + request.limit)
        .map((match) => match.key);
      return { rows: keys.length ? await this.rowsInOrder(keys) : [], total: few.length };
    }
    const counts = await this.remembered(token, `matches ${viewKey(view)} ${text}`, async () => {
      const [row] = await this.reader.rows(matchCountsSql(this.kind, view, now, text));
      return Array.from({ length: MATCH_CLASSES }, (_, i) => toCount(row?.[`c${i}`]));
    });
    const total = counts.reduce((sum, n) => sum + n, 0);
    if (isSorted(view)) {
      if (request.offset >= total) return { rows: [], total };
      const found = await this.reader.rows(
        sortedMatchPageSql(this.kind, view, now, { text, skip: request.offset, limit: request.limit }),
      );
      return { rows: found.map(toListing), total };
    }
    const viewTotal = await this.viewTotal(view, now, token);
    const rows: Listing[] = [];
    let classStart = 0;
    for (const [matchClass, size] of counts.entries()) {
      const position = request.offset + rows.length;
      const wanted = request.limit - rows.length;
      if (wanted > 0 && position < classStart + size) {
        const skip = position - classStart;
        const limit = Math.min(wanted, size - skip);
        // Walking the newest-first index from the nearest checkpoint meets about (steps + limit) *
        // viewTotal / size rows before it has this slice; the search index hands over the class's
        // `size` candidates to sort.
        const steps = token === undefined ? skip : skip % MATCH_SEEK_STRIDE;
        const walk = !hasTrigrams(text) || (steps + limit) * viewTotal <= size * size;
        // A deep page of a walked class seeks too, to a checkpoint of that class's own matches.
        const start = walk
          ? await this.seek(`${viewKey(view)} ${matchClass} ${text}`, token, skip, MATCH_SEEK_STRIDE, (at, count) =>
              matchKeyAtSql(this.kind, view, now, { text, matchClass, from: at, skip: count }),
            )
          : { from: undefined, skip };
        const found = await this.reader.rows(
          matchPageSql(this.kind, view, now, { text, matchClass, walk, ...start, limit }),
        );
        rows.push(...found.map(toListing));
      }
      classStart += size;
    }
    return { rows, total };
  }

  /**
   * Every match in rank order when there are at most FEW_MATCHES, else null; and the rows of the
   * page asked, in the view's order (from the same statement, so they agree with the ranking).
   */
  private async fewMatches(
    view: CatalogView,
    now: Date,
    text: string,
    page: { offset: number; limit: number },
  ): Promise<{ matches: RankedMatch[] | null; rows: Listing[] }> {
    const found = await this.reader.rows(matchRowsSql(this.kind, view, now, text, FEW_MATCHES + 1));
    if (found.length > FEW_MATCHES) return { matches: null, rows: [] };
    const rowOf = new Map<RankedMatch, SqlRow>();
    const matches: RankedMatch[] = [];
    for (const row of found) {
      const matchClass = toCount(row.matchClass);
      if (matchClass >= MATCH_CLASSES) continue;
      const match = {
        key: row.key,
        matchClass,
        listedAt: toDate(row.listedAt).getTime(),
        id: String(row.id),
        calls30d: toCount(row.calls30d),
        priceMicros: BigInt(row.priceMicros as number | bigint | string),
        uptime7d: Number(row.uptime7d),
      };
      rowOf.set(match, row);
      matches.push(match);
    }
    matches.sort((a, b) => a.matchClass - b.matchClass || newestFirst(a, b));
    const rows = this.inViewOrder(view, matches)
      .slice(page.offset, page.offset + page.limit)
      .map((match) => toListing(rowOf.get(match)!));
    return { matches, rows };
  }

  /** The few matches (ranked newest first by class) in the view's order: a sorted view orders a copy. */
  private inViewOrder(view: CatalogView, matches: RankedMatch[]): RankedMatch[] {
    return isSorted(view) ? [...matches].sort(fullOrder(view.sort ?? DEFAULT_SORT)) : matches;
  }

  private async rowsInOrder(keys: unknown[]): Promise<Listing[]> {
    const byKey = new Map(
      (await this.reader.rows(rowsByKeySql(this.kind, keys), { onePlan: true })).map(({ key, ...row }) => [
        String(key),
        row,
      ]),
    );
    return keys.flatMap((key) => {
      const row = byKey.get(String(key));
      return row ? [toListing(row)] : [];
    });
  }

  /** Newest first; with `since`, the OLDEST `limit` rows listed after it (a poller's next page), newest first. */
  async feed(view: CatalogView, request: { since?: Date | undefined; limit: number; now: Date }): Promise<Listing[]> {
    if (!request.since)
      return (await this.reader.rows(pageSql(this.kind, view, request.now, { skip: 0, limit: request.limit }))).map(
        toListing,
      );
    const oldestFirst = await this.reader.rows(
      listedAfterSql(this.kind, view, request.now, request.since, request.limit),
    );
    return oldestFirst.map(toListing).reverse();
  }

  /** The listings of these ids the view shows, in the order of `ids` (a ranked search's rows). */
  async inViewByIds(view: CatalogView, ids: string[], now: Date): Promise<Listing[]> {
    if (ids.length === 0) return [];
    const byId = new Map(
      (await this.reader.rows(inViewByIdsSql(this.kind, view, now, ids), { onePlan: valueFreePlan(view) })).map(
        (row) => [String(row.id), row],
      ),
    );
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [toListing(row)] : [];
    });
  }

  /** Which of these ids the view shows. */
  async idsInView(view: CatalogView, ids: string[], now: Date): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    return new Set(
      (await this.reader.rows(idsInViewSql(this.kind, view, now, ids), { onePlan: valueFreePlan(view) })).map((row) =>
        String(row.id),
      ),
    );
  }

  /** One live listing by id (`GET /listings/{id}`), or null. */
  async live(id: string, now: Date): Promise<Listing | null> {
    const [row] = await this.reader.rows(liveByIdSql(id, now), { onePlan: true });
    return row ? toListing(row) : null;
  }

  /** Visible foreign rows, visible seed rows, and every stored row in any state. */
  async counts(now: Date, token?: string): Promise<{ foreign: number; seed: number; rawAll: number }> {
    const foreign = await this.viewTotal({ includeSeed: false }, now, token);
    const all = await this.viewTotal({ includeSeed: true }, now, token);
    const rawAll = await this.remembered(token, "raw count", async () =>
      toCount((await this.reader.rows(rawCountSql))[0]?.total),
    );
    return { foreign, seed: all - foreign, rawAll };
  }
}

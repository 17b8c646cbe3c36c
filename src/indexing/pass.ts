// One pass of the index crawler over one source: its counts, and the steps every kind of source shares
// (a bounded polite fetch, storing what a document declared).
import type { IndexingConfig, IndexSource } from "../config.js";
import type { Logger } from "../logger.js";
import type { SellerProbe } from "../probe/seller-probe.js";
import type { IndexedResource, IndexStore } from "./index-store.js";
import { candidatesOf, type CandidateRules } from "./candidates.js";
import type { DocumentPool } from "../workers/pool.js";
import {
  fetchBytes,
  fetchJson,
  type Fetched,
  type FetchedBytes,
  type HostGap,
  type Validators,
} from "./fetch-document.js";

/**
 * Where another host publishes what the crawler reads: the x402 discovery documents, and a
 * marketplace's sync API (this service's own paths, on another origin: the link table builds ours).
 */
export const REMOTE_PATHS = {
  manifest: "/.well-known/x402",
  routeManifest: "/.well-known/x402.json",
  openapi: "/openapi.json",
  sync: "/sync/listings",
} as const;
export const remoteUrl = (path: string, origin: string | URL) => new URL(path, origin);

/** A document as provenance names it: scheme, host and path, never a query string. */
export const documentOf = (url: URL) => `${url.origin}${url.pathname}`;

/** What one source's run came to: ingested and refused counts, and why it stopped early (null: it did not). */
export interface SourceReport {
  source: string;
  complete: boolean;
  problem: string | null;
  counts: Record<string, number>;
}

export interface CrawlDeps {
  config: IndexingConfig;
  store: IndexStore;
  /** Reads a bare URL's 402 to learn its terms (a manifest lists URLs only). */
  probe: Pick<SellerProbe, "check">;
  rules: CandidateRules;
  /** Where a large document (a snapshot) is parsed and hashed: never on the event loop. */
  documents: DocumentPool;
  now(): Date;
  logger: Logger;
}

/** One pass's working state for a source: counts, and the context every step needs. */
export class Pass {
  readonly counts: Record<string, number> = {};
  /** New rows the source may still add (INDEX_MAX_ITEMS less the rows it holds), read at its first store. */
  private room: number | null = null;
  private pages = 0;

  constructor(
    readonly deps: CrawlDeps,
    readonly source: IndexSource,
    readonly gap: HostGap,
    readonly signal: AbortSignal,
    /** Renews the crawler's lease (false: another instance has it now, stop). */
    readonly renewLease: () => Promise<boolean> = () => Promise.resolve(true),
  ) {}

  add(name: string, n = 1): void {
    if (n > 0) this.counts[name] = (this.counts[name] ?? 0) + n;
  }

  fetch(url: URL, maxBytes = this.deps.config.maxDocumentBytes): Promise<Fetched> {
    return fetchJson(
      url,
      { ...this.deps.config, maxBytes, allowLoopback: this.deps.rules.allowLoopback },
      this.gap,
      this.signal,
    );
  }

  /** A document's bytes, unparsed; with `unless`, only when it changed since (a 304 is `not_modified`). */
  fetchBytes(url: URL, maxBytes: number, unless?: Validators): Promise<FetchedBytes> {
    return fetchBytes(
      url,
      { ...this.deps.config, maxBytes, allowLoopback: this.deps.rules.allowLoopback },
      this.gap,
      this.signal,
      unless,
    );
  }

  /** Stores what a document declared, counting what was taken and refused; `idOf`: the id a row keeps (a mirror's). */
  async ingest(items: unknown[], document: URL, idOf?: (item: unknown) => string | undefined): Promise<void> {
    const { resources, refused } = candidatesOf(items, documentOf(document), this.deps.rules, idOf);
    for (const [code, n] of Object.entries(refused)) this.add(`refused_${code}`, n);
    await this.store(resources);
  }

  async store(resources: IndexedResource[]): Promise<void> {
    if (resources.length === 0) return;
    this.room ??= Math.max(0, this.deps.config.maxItemsPerSource - (await this.deps.store.countOf(this.source.name)));
    const { overCap, ...counts } = await this.deps.store.ingest(
      this.source.name,
      resources,
      this.deps.now(),
      this.room,
    );
    this.room = Math.max(0, this.room - counts.added);
    this.add("refused_item_cap", overCap);
    for (const [name, n] of Object.entries(counts)) this.add(name, n);
  }

  /** Rows of the source removed during the pass (tombstones): room for as many new ones. */
  removed(n: number): void {
    this.add("removed", n);
    if (this.room !== null) this.room += n;
  }

  /** True when the source has had its turn of pages in this run (INDEX_MAX_PAGES); counts the page about to be read otherwise. */
  turnOver(): boolean {
    if (this.pages >= this.deps.config.maxPagesPerRun) return true;
    this.pages++;
    return false;
  }

  report(complete: boolean, problem: string | null): SourceReport {
    return { source: this.source.name, complete, problem, counts: this.counts };
  }
}

export type PassOutcome = { complete: boolean; problem: string | null; full?: boolean };

// The index crawler (issue 28): reads every configured source in turn, one pass each run, and keeps
// what they declare as indexed rows (src/indexing/index-store.ts). Bounded per source (items, bytes,
// time per request), polite per host (a gap between requests), SSRF-safe (fetch-document.ts), and
// resumable: where it is in a source is saved after every page, so a restart, a kill -9 or another
// instance taking the lease goes on from there. A row is shown only once the health prober, which
// takes indexed rows on like listings, has confirmed its 402.
import { BARE_DOMAIN, type IndexSource } from "../config.js";
import type { IndexedResource } from "./index-store.js";
import { declaredText, MAX_DESCRIPTION, resourceProblem } from "./candidates.js";
import { HostGap } from "./fetch-document.js";
import { mirrorPass, type RefusedSnapshots } from "./mirror.js";
import { paidOperations } from "./openapi-operations.js";
import {
  documentOf,
  Pass,
  REMOTE_PATHS,
  remoteUrl,
  type CrawlDeps,
  type PassOutcome,
  type SourceReport,
} from "./pass.js";

export type { CrawlDeps, SourceReport } from "./pass.js";

const PAGE_SIZE = 100;

export class IndexCrawler {
  private readonly refusedSnapshots: RefusedSnapshots = new Map();

  constructor(private readonly deps: CrawlDeps) {}

  get enabled(): boolean {
    return this.deps.config.sources.length > 0;
  }

  /** One run: each configured source's pass (resumed where it stopped), then the peers their manifests named. */
  async run(signal: AbortSignal, renewLease: () => Promise<boolean>): Promise<SourceReport[]> {
    const gap = new HostGap(this.deps.config.hostGapMs);
    const reports: SourceReport[] = [];
    const peers = new Map<string, IndexSource>();
    const queue = [...this.deps.config.sources];
    for (let source = queue.shift(); source && !signal.aborted; source = queue.shift()) {
      if (!(await renewLease())) break;
      const pass = new Pass(this.deps, source, gap, signal, renewLease);
      const report = await this.passOf(pass, (found) => {
        for (const peer of found) {
          if (peers.size >= this.deps.config.maxPeers || peers.has(peer.name)) continue;
          peers.set(peer.name, peer);
          queue.push(peer);
        }
      }).catch((error: unknown) => {
        this.deps.logger.warn({ source: source!.name, error: (error as Error).name }, "index crawl of a source failed");
        return pass.report(false, "failed");
      });
      reports.push(report);
      if (report.problem)
        this.deps.logger.info(
          { source: source.name, problem: report.problem, counts: report.counts },
          "index crawl stopped early",
        );
    }
    return reports;
  }

  private async passOf(pass: Pass, foundPeers: (peers: IndexSource[]) => void): Promise<SourceReport> {
    const { store } = this.deps;
    const name = pass.source.name;
    const checkpoint = await store.checkpoint(name);
    const started = checkpoint.passStartedAt ?? this.deps.now();
    if (!checkpoint.passStartedAt)
      await store.saveCheckpoint(name, { passStartedAt: started, lastRunAt: this.deps.now() });
    const outcome =
      pass.source.kind === "bazaar"
        ? await this.catalogPass(pass, Number(checkpoint.cursor ?? 0))
        : pass.source.kind === "domain"
          ? await this.domainPass(pass, foundPeers)
          : await mirrorPass(pass, checkpoint, this.refusedSnapshots);
    if (!outcome.complete) {
      await store.saveCheckpoint(name, { lastRunAt: this.deps.now(), lastProblem: outcome.problem });
      return pass.report(false, outcome.problem);
    }
    // A sync source removes by tombstone; a full pass removes what it did not see again.
    if (pass.source.kind !== "sync" || outcome.full)
      pass.add("removed", await store.sweep(name, started, this.deps.now()));
    const done = this.deps.now();
    await store.saveCheckpoint(name, {
      cursor: null,
      passStartedAt: null,
      lastRunAt: done,
      lastCompletedAt: done,
      lastProblem: outcome.problem,
      lastCounts: pass.counts,
    });
    return pass.report(true, outcome.problem);
  }

  /** A Bazaar-shaped catalog's list, page by page (limit/offset), the offset saved after each page. */
  private async catalogPass(pass: Pass, from: number): Promise<PassOutcome> {
    const { config, store } = this.deps;
    for (let offset = from; !pass.signal.aborted;) {
      if (offset >= config.maxItemsPerSource) return { complete: true, problem: "item_cap" };
      if (pass.turnOver()) return { complete: false, problem: "page_cap" };
      const url = new URL(pass.source.url);
      url.searchParams.set("limit", String(PAGE_SIZE));
      url.searchParams.set("offset", String(offset));
      const fetched = await pass.fetch(url);
      if (!fetched.ok) return { complete: false, problem: fetched.problem };
      const body = fetched.json as { items?: unknown; resources?: unknown; pagination?: { total?: unknown } } | null;
      const items = Array.isArray(body?.items) ? body.items : Array.isArray(body?.resources) ? body.resources : null;
      if (!items) return { complete: false, problem: "not_a_catalog" };
      const page = items.slice(0, Math.max(0, config.maxItemsPerSource - offset));
      await pass.ingest(page, url);
      offset += items.length;
      await store.saveCheckpoint(pass.source.name, { cursor: String(offset), lastRunAt: this.deps.now() });
      const total = typeof body?.pagination?.total === "number" ? body.pagination.total : null;
      if (items.length === 0 || (total !== null ? offset >= total : items.length < PAGE_SIZE))
        return { complete: true, problem: null };
    }
    return { complete: false, problem: "stopped" };
  }

  /**
   * A domain: its route manifest (/.well-known/x402.json: items with their terms), its discovery
   * manifest (/.well-known/x402: resource URLs and peers) and its OpenAPI document's paid operations
   * (/openapi.json): the URLs without terms have their 402 read to learn them.
   */
  private async domainPass(pass: Pass, foundPeers: (peers: IndexSource[]) => void): Promise<PassOutcome> {
    const origin = new URL(pass.source.url);
    const routes = await pass.fetch(remoteUrl(REMOTE_PATHS.routeManifest, origin));
    const known = new Set<string>();
    if (routes.ok && Array.isArray((routes.json as { items?: unknown } | null)?.items)) {
      const items = (routes.json as { items: unknown[] }).items.slice(0, this.deps.config.maxItemsPerSource);
      await pass.ingest(items, remoteUrl(REMOTE_PATHS.routeManifest, origin));
      for (const item of items) known.add(urlOf((item as { resource?: unknown } | null)?.resource) ?? "");
    }
    const manifest = await pass.fetch(remoteUrl(REMOTE_PATHS.manifest, origin));
    const openapi = await pass.fetch(remoteUrl(REMOTE_PATHS.openapi, origin));
    if (!manifest.ok && !routes.ok && !openapi.ok) return { complete: false, problem: manifest.problem };
    const declared =
      manifest.ok && typeof manifest.json === "object" && manifest.json !== null
        ? (manifest.json as Record<string, unknown>)
        : {};
    const operations = openapi.ok ? paidOperations(openapi.json, origin, this.deps.config.maxItemsPerSource) : [];
    const manifestEntries: unknown[] = Array.isArray(declared.resources) ? declared.resources : [];
    const inManifest = new Set(manifestEntries.map((entry) => urlOf(entry)));
    const listed = [...manifestEntries, ...operations.filter((operation) => !inManifest.has(operation.url))];
    const bare = listed
      .filter((entry) => !known.has(urlOf(entry) ?? ""))
      .slice(0, Math.max(0, this.deps.config.maxItemsPerSource - known.size));
    if (listed.length > bare.length + known.size)
      pass.add("refused_item_cap", listed.length - bare.length - known.size);
    await this.learnTerms(pass, bare, remoteUrl(REMOTE_PATHS.manifest, origin));
    if (!pass.source.name.startsWith("peer:")) foundPeers(peersOf(declared.peers, this.deps.rules.allowLoopback));
    return { complete: true, problem: null };
  }

  /** A manifest's bare URLs: each one's 402 is read (the seller probe's checks) for its payTo and price. */
  private async learnTerms(pass: Pass, entries: unknown[], document: URL): Promise<void> {
    const found: IndexedResource[] = [];
    for (const entry of entries) {
      if (pass.signal.aborted) break;
      const url = urlOf(entry);
      const method =
        typeof entry === "object" && entry !== null && (entry as { method?: unknown }).method === "POST"
          ? "POST"
          : "GET";
      const problem = url ? resourceProblem(url, this.deps.rules) : "no_resource";
      if (problem || !url) {
        pass.add(`refused_${problem}`);
        continue;
      }
      await pass.gap.wait(new URL(url).host, pass.signal);
      const probed = await this.deps.probe.check({ resource: url, method, priceAtomic: null, sellerPayTo: null });
      if (!probed.ok) {
        pass.add(`refused_probe_${probed.code}`);
        continue;
      }
      const description =
        typeof entry === "object" && entry !== null ? (entry as { description?: unknown }).description : undefined;
      found.push({
        resource: url,
        method,
        // The manifest's words, cleaned as a catalog item's are (no control characters, bounded).
        description: declaredText(description, MAX_DESCRIPTION) ?? probed.metadata.metadata.serviceName ?? "",
        priceAtomic: probed.requirement.amount,
        payTo: probed.requirement.payTo,
        serviceName: probed.metadata.metadata.serviceName ?? undefined,
        tags: probed.metadata.metadata.tags ?? undefined,
        mimeType: probed.metadata.metadata.mimeType ?? undefined,
        document: documentOf(document),
      });
    }
    await pass.store(found);
  }
}

/** A manifest entry's URL: a string, or an object's `url`. */
function urlOf(entry: unknown): string | undefined {
  if (typeof entry === "string") return entry;
  if (typeof entry === "object" && entry !== null && typeof (entry as { url?: unknown }).url === "string")
    return (entry as { url: string }).url;
  return undefined;
}

/** The peers a manifest names, as domain sources: bare domain names (loopback host:port in tests). */
function peersOf(value: unknown, allowLoopback: boolean): IndexSource[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((peer) => {
    if (typeof peer !== "string") return [];
    const host = peer.trim().toLowerCase();
    if (BARE_DOMAIN.test(host)) return [{ name: `peer:${host}`, kind: "domain" as const, url: `https://${host}` }];
    if (allowLoopback && /^(127\.0\.0\.1|localhost):\d{1,5}$/.test(host))
      return [{ name: `peer:${host}`, kind: "domain" as const, url: `http://${host}` }];
    return [];
  });
}

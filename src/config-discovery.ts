// The discovery half of the configuration (issue 28): what /.well-known/x402 and the signed snapshot
// publish, and which other catalogs and domains the index crawler reads.
import type { EnvReader } from "./config-schema.js";

/** What /.well-known/x402 and the signed snapshot publish. */
export interface DiscoveryConfig {
  /** The key that signs /sync/snapshot; null: one generated once and kept in the database. */
  signingKey: `0x${string}` | null;
  /** Bare domain names of other hosts publishing x402 discovery data (the manifest's `peers`, at most 32). */
  peers: string[];
  indexing: IndexingConfig;
}

/**
 * A place the crawler reads: `bazaar` a Bazaar-shaped catalog's /discovery/resources, `domain` a
 * host's /.well-known/x402 (and x402.json), `sync` another marketplace's sync API and signed snapshot.
 */
export interface IndexSource {
  /** `<kind>:<host>`: unique, shown as the provenance of every row it gave. */
  name: string;
  kind: "bazaar" | "domain" | "sync";
  /** The document's URL (bazaar), or the origin (domain, sync). */
  url: string;
}

export interface IndexingConfig {
  sources: IndexSource[];
  /** Wait between crawls (jittered); 0: only when run on demand. */
  intervalMs: number;
  /** One document (a page, a manifest) at most this many bytes: larger is refused. */
  maxDocumentBytes: number;
  /** A signed snapshot at most this many bytes. */
  maxSnapshotBytes: number;
  /** One request's whole exchange. */
  timeoutMs: number;
  /** Rows one source may hold (and resources taken in one pass), at most: the rest are counted and left. */
  maxItemsPerSource: number;
  /** Pages (catalog pages, change-log pages) read from one source in one run before the next source's turn. */
  maxPagesPerRun: number;
  /** Between two requests to one host. */
  hostGapMs: number;
  /** Peers a domain's manifest names that are crawled too (one level, never their peers). */
  maxPeers: number;
}

const KINDS = new Set(["bazaar", "domain", "sync"]);
/** A bare domain name (no scheme, port or path): DISCOVERY_PEERS, a domain source, a manifest's peers. */
export const BARE_DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** One INDEX_SOURCES entry (`kind:target`), or why not. http is accepted for loopback hosts only (tests). */
function parseSource(entry: string): IndexSource | string {
  const colon = entry.indexOf(":");
  const kind = entry.slice(0, colon);
  const target = entry.slice(colon + 1);
  if (colon < 0 || !KINDS.has(kind)) return `"${entry}" must start with bazaar:, domain: or sync:`;
  let url: URL;
  try {
    url = new URL(kind === "domain" && BARE_DOMAIN.test(target) ? `https://${target}` : target);
  } catch {
    return `"${entry}" needs an absolute URL${kind === "domain" ? " or a bare domain name" : ""}`;
  }
  if (url.username || url.password || url.search || url.hash)
    return `"${entry}" must not carry credentials, a query or a fragment`;
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)))
    return `"${entry}" must be https`;
  return {
    name: `${kind}:${url.host}`,
    kind: kind as IndexSource["kind"],
    url: kind === "bazaar" ? url.href : url.origin,
  };
}

function parseSources(raw: string | undefined, problems: string[]): IndexSource[] {
  const sources: IndexSource[] = [];
  for (const entry of (raw ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const parsed = parseSource(entry);
    if (typeof parsed === "string") problems.push(`INDEX_SOURCES: ${parsed}`);
    else if (sources.some((source) => source.name === parsed.name))
      problems.push(`INDEX_SOURCES names ${parsed.name} twice`);
    else sources.push(parsed);
  }
  if (sources.length > 64) problems.push(`INDEX_SOURCES may name at most 64 sources, got ${sources.length}`);
  return sources.slice(0, 64);
}

export function parseDiscovery(read: EnvReader, problems: string[]): DiscoveryConfig {
  const { integer } = read;
  const rawKey = read.raw("CATALOG_SIGNING_KEY");
  let signingKey: DiscoveryConfig["signingKey"] = null;
  if (rawKey) {
    if (/^0x[0-9a-fA-F]{64}$/.test(rawKey)) signingKey = rawKey as `0x${string}`;
    else problems.push("CATALOG_SIGNING_KEY must be 0x and 64 hex digits (the value is not shown)");
  }
  const peers = (read.raw("DISCOVERY_PEERS") ?? "")
    .split(",")
    .map((peer) => peer.trim().toLowerCase())
    .filter(Boolean);
  const bad = peers.filter((peer) => !BARE_DOMAIN.test(peer));
  if (bad.length > 0)
    problems.push(`DISCOVERY_PEERS must be bare domain names (no scheme, path or port), got "${bad[0]}"`);
  if (peers.length > 32) problems.push(`DISCOVERY_PEERS may name at most 32 domains, got ${peers.length}`);
  return {
    signingKey,
    peers: bad.length > 0 ? [] : peers.slice(0, 32),
    indexing: {
      sources: parseSources(read.raw("INDEX_SOURCES"), problems),
      intervalMs: integer("INDEX_INTERVAL_SECONDS") * 1000,
      maxDocumentBytes: integer("INDEX_MAX_DOCUMENT_BYTES"),
      maxSnapshotBytes: integer("INDEX_MAX_SNAPSHOT_BYTES"),
      timeoutMs: integer("INDEX_TIMEOUT_MS"),
      maxItemsPerSource: integer("INDEX_MAX_ITEMS"),
      maxPagesPerRun: integer("INDEX_MAX_PAGES"),
      hostGapMs: integer("INDEX_HOST_GAP_MS"),
      maxPeers: integer("INDEX_MAX_PEERS"),
    },
  };
}

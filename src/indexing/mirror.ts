// A `sync` source: another marketplace of this kind, mirrored exactly. The first pass loads its signed
// snapshot, checked against the signer its /.well-known/x402 publishes (a snapshot that does not hash
// to its contentHash, or is not signed by that key, is refused and nothing of it is stored); every
// later pass follows its change log (/sync/listings from the last pass's updatedUntil, cursor saved
// after each page): live items are upserted and tombstones removed. Rows keep the source's listing ids.
import { isAddress } from "viem";
import { snapshotProblem, type SignedSnapshotLike } from "../market/snapshot-signing.js";
import type { Checkpoint } from "../storage/index-store.js";
import { REMOTE_PATHS, remoteUrl, type Pass, type PassOutcome } from "./pass.js";

const SYNC_PAGE = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface SyncPage {
  items: Array<{ id?: unknown; removed?: unknown; item?: unknown }>;
  nextCursor?: unknown;
  updatedUntil?: unknown;
}

export function mirrorPass(pass: Pass, checkpoint: Checkpoint): Promise<PassOutcome> {
  return checkpoint.updatedSince ? followChanges(pass, checkpoint) : loadSnapshot(pass);
}

/** A mirrored item's listing id, which its row keeps so the source's tombstones find it. */
function listingIdOf(item: unknown): string | undefined {
  const id = (item as { metadata?: { listingId?: unknown } } | null)?.metadata?.listingId;
  return typeof id === "string" && UUID.test(id) ? id.toLowerCase() : undefined;
}

async function loadSnapshot(pass: Pass): Promise<PassOutcome> {
  const origin = new URL(pass.source.url);
  const manifest = await pass.fetch(remoteUrl(REMOTE_PATHS.manifest, origin));
  if (!manifest.ok) return { complete: false, problem: manifest.problem };
  const catalog = (manifest.json as { catalog?: { snapshot?: unknown; snapshotSigner?: unknown } } | null)?.catalog;
  const signer = catalog?.snapshotSigner;
  if (typeof signer !== "string" || !isAddress(signer, { strict: false }) || typeof catalog?.snapshot !== "string") {
    return { complete: false, problem: "no_signed_snapshot" };
  }
  // Read from the source's own origin, at the path it publishes: a manifest cannot send the crawler elsewhere.
  let url: URL;
  try {
    url = new URL(new URL(catalog.snapshot).pathname, origin);
  } catch {
    return { complete: false, problem: "no_signed_snapshot" };
  }
  const fetched = await pass.fetch(url, pass.deps.config.maxSnapshotBytes);
  if (!fetched.ok) return { complete: false, problem: fetched.problem };
  const snapshot = fetched.json as SignedSnapshotLike | null;
  const shaped =
    typeof snapshot === "object" &&
    snapshot !== null &&
    Array.isArray(snapshot.items) &&
    ["generatedAt", "contentHash", "signature"].every((field) => typeof snapshot[field as keyof SignedSnapshotLike] === "string");
  if (!shaped || (await snapshotProblem(snapshot, signer)) !== null) {
    pass.deps.logger.warn({ source: pass.source.name }, "a mirrored snapshot failed its signature check; nothing of it was stored");
    return { complete: false, problem: "snapshot_refused" };
  }
  await pass.ingest(snapshot.items.slice(0, pass.deps.config.maxItemsPerSource), url, listingIdOf);
  if (snapshot.items.length > pass.deps.config.maxItemsPerSource) pass.add("refused_item_cap", snapshot.items.length - pass.deps.config.maxItemsPerSource);
  await pass.deps.store.saveCheckpoint(pass.source.name, { updatedSince: snapshot.generatedAt, lastRunAt: pass.deps.now() });
  return { complete: true, problem: null, full: true };
}

async function followChanges(pass: Pass, checkpoint: Checkpoint): Promise<PassOutcome> {
  const { store } = pass.deps;
  let cursor = checkpoint.cursor;
  while (!pass.signal.aborted) {
    if (!(await pass.renewLease())) return { complete: false, problem: "lease_lost" };
    const url = remoteUrl(REMOTE_PATHS.sync, pass.source.url);
    url.searchParams.set("limit", String(SYNC_PAGE));
    if (cursor) url.searchParams.set("cursor", cursor);
    else url.searchParams.set("updated_since", checkpoint.updatedSince!);
    const fetched = await pass.fetch(url);
    if (!fetched.ok) return { complete: false, problem: fetched.problem };
    const page = fetched.json as SyncPage | null;
    if (!page || !Array.isArray(page.items) || typeof page.updatedUntil !== "string") return { complete: false, problem: "not_a_sync_page" };
    // Removals first: a resource delisted and listed again under a new id comes back as the new row.
    const removed = page.items.flatMap((entry) => (entry.removed === true && typeof entry.id === "string" ? [entry.id.toLowerCase()] : []));
    pass.add("removed", await store.removeIds(pass.source.name, removed, pass.deps.now()));
    await pass.ingest(
      page.items.flatMap((entry) => (entry.removed === true ? [] : [entry.item])),
      url,
      listingIdOf,
    );
    cursor = typeof page.nextCursor === "string" ? page.nextCursor : null;
    await store.saveCheckpoint(
      pass.source.name,
      cursor ? { cursor, lastRunAt: pass.deps.now() } : { cursor: null, updatedSince: page.updatedUntil, lastRunAt: pass.deps.now() },
    );
    if (!cursor) return { complete: true, problem: null };
  }
  return { complete: false, problem: "stopped" };
}

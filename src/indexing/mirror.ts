// A `sync` source: another marketplace of this kind, mirrored exactly. The first pass loads its signed
// snapshot, checked against the signer its /.well-known/x402 publishes (a snapshot that does not hash
// to its contentHash, or is not signed by that key, is refused and nothing of it is stored); every
// later pass follows its change log (/sync/listings from the last pass's updatedUntil, cursor saved
// after each page): live items are upserted and tombstones removed. Rows keep the source's listing ids.
import { isAddress } from "viem";
import type { Checkpoint } from "./index-store.js";
import { moduleBeside, type TaskModule } from "../workers/pool.js";
import type { Validators } from "./fetch-document.js";
import { documentOf, REMOTE_PATHS, remoteUrl, type Pass, type PassOutcome } from "./pass.js";
import { checkSnapshot, listingIdOf, type SnapshotCheck, type SnapshotCheckTask } from "./snapshot-check.js";

const SYNC_PAGE = 500;
const SNAPSHOT_CHECK: TaskModule<SnapshotCheckTask, SnapshotCheck> = {
  filename: moduleBeside(import.meta.url, "snapshot-check"),
  inline: checkSnapshot,
};

interface SyncPage {
  items: Array<{ id?: unknown; removed?: unknown; item?: unknown }>;
  nextCursor?: unknown;
  updatedUntil?: unknown;
}

/**
 * A snapshot refused, by source: what identifies it (its validators, the digest of its bytes), so it
 * is not read again until it changes or the source publishes another signer. Kept by the crawler
 * (per instance): another instance taking the lease reads it once more.
 */
export interface RefusedSnapshot {
  url: string;
  signer: string;
  validators: Validators;
  digest: string | null;
}
export type RefusedSnapshots = Map<string, RefusedSnapshot>;

export function mirrorPass(pass: Pass, checkpoint: Checkpoint, refused: RefusedSnapshots): Promise<PassOutcome> {
  return checkpoint.updatedSince ? followChanges(pass, checkpoint) : loadSnapshot(pass, refused);
}

async function loadSnapshot(pass: Pass, refusals: RefusedSnapshots): Promise<PassOutcome> {
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
  const before = refusals.get(pass.source.name);
  const known =
    before && before.url === url.href && before.signer.toLowerCase() === signer.toLowerCase() ? before : undefined;
  // A conditional GET: a snapshot refused before is not read again until its validators change.
  const fetched = await pass.fetchBytes(url, pass.deps.config.maxSnapshotBytes, known?.validators);
  if (!fetched.ok) {
    if (fetched.problem !== "not_modified") return { complete: false, problem: fetched.problem };
    pass.add("snapshot_unchanged");
    return { complete: false, problem: "snapshot_refused" };
  }
  const task: SnapshotCheckTask = {
    parts: fetched.parts,
    signer,
    document: documentOf(url),
    rules: pass.deps.rules,
    maxItems: pass.deps.config.maxItemsPerSource,
    refusedDigest: known?.digest ?? null,
  };
  // The blocks are moved, not copied: each is its own ArrayBuffer (src/probe/pinned-request.ts).
  const checked = await pass.deps.documents
    .run(
      SNAPSHOT_CHECK,
      task,
      fetched.parts.map((part) => part.buffer as ArrayBuffer),
    )
    .catch(
      // Its thread ended (past its heap bound, ERR_WORKER_OUT_OF_MEMORY): the document is refused as the others are.
      (error: unknown): SnapshotCheck => ({
        ok: false,
        digest: "",
        problem: "snapshot_refused",
        reason: `its check failed (${(error as { code?: string }).code ?? (error as Error).name})`,
      }),
    );
  if (!checked.ok) {
    if (checked.unchanged) pass.add("snapshot_unchanged");
    refusals.set(pass.source.name, {
      url: url.href,
      signer,
      validators: fetched.validators,
      digest: checked.digest || null,
    });
    pass.deps.logger.warn(
      { source: pass.source.name, reason: checked.reason },
      "a mirrored snapshot was refused; nothing of it was stored",
    );
    return { complete: false, problem: checked.problem };
  }
  refusals.delete(pass.source.name);
  for (const [code, n] of Object.entries(checked.refused)) pass.add(`refused_${code}`, n);
  pass.add("refused_item_cap", checked.overCap);
  await pass.store(checked.resources);
  await pass.deps.store.saveCheckpoint(pass.source.name, {
    updatedSince: checked.generatedAt,
    lastRunAt: pass.deps.now(),
  });
  return { complete: true, problem: null, full: true };
}

async function followChanges(pass: Pass, checkpoint: Checkpoint): Promise<PassOutcome> {
  const { store } = pass.deps;
  let cursor = checkpoint.cursor;
  while (!pass.signal.aborted) {
    // Its turn of pages over, the source waits for the next run (from the saved cursor): the others are read first.
    if (pass.turnOver()) return { complete: false, problem: "page_cap" };
    if (!(await pass.renewLease())) return { complete: false, problem: "lease_lost" };
    const url = remoteUrl(REMOTE_PATHS.sync, pass.source.url);
    url.searchParams.set("limit", String(SYNC_PAGE));
    if (cursor) url.searchParams.set("cursor", cursor);
    else url.searchParams.set("updated_since", checkpoint.updatedSince!);
    const fetched = await pass.fetch(url);
    if (!fetched.ok) return { complete: false, problem: fetched.problem };
    const page = fetched.json as SyncPage | null;
    if (!page || !Array.isArray(page.items) || typeof page.updatedUntil !== "string")
      return { complete: false, problem: "not_a_sync_page" };
    // Removals first: a resource delisted and listed again under a new id comes back as the new row.
    const removed = page.items.flatMap((entry) =>
      entry.removed === true && typeof entry.id === "string" ? [entry.id.toLowerCase()] : [],
    );
    pass.removed(await store.removeIds(pass.source.name, removed, pass.deps.now()));
    await pass.ingest(
      page.items.flatMap((entry) => (entry.removed === true ? [] : [entry.item])),
      url,
      listingIdOf,
    );
    cursor = typeof page.nextCursor === "string" ? page.nextCursor : null;
    await store.saveCheckpoint(
      pass.source.name,
      cursor
        ? { cursor, lastRunAt: pass.deps.now() }
        : { cursor: null, updatedSince: page.updatedUntil, lastRunAt: pass.deps.now() },
    );
    if (!cursor) return { complete: true, problem: pass.counts.refused_item_cap ? "item_cap" : null };
  }
  return { complete: false, problem: "stopped" };
}

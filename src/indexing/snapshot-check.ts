// A mirrored marketplace's signed snapshot checked off the event loop: it runs on the document pool's
// thread (src/workers/pool.ts). Parsing and hashing 64 MiB took seconds of the request thread (/livez
// answered in 12.6 s); here the request thread only receives what is worth storing: the resources of
// at most INDEX_MAX_ITEMS items. Plain data in and out; nothing here touches the database or network.
import { createHash } from "node:crypto";
import { snapshotProblem, type SignedSnapshotLike } from "../market/snapshot-signing.js";
import type { IndexedResource } from "./index-store.js";
import { candidatesOf, type CandidateRules, type Refusal } from "./candidates.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A mirrored item's listing id, which its row keeps so the source's tombstones find it. */
export function listingIdOf(item: unknown): string | undefined {
  const id = (item as { metadata?: { listingId?: unknown } } | null)?.metadata?.listingId;
  return typeof id === "string" && UUID.test(id) ? id.toLowerCase() : undefined;
}

export interface SnapshotCheckTask {
  /** The document's bytes, in the blocks it was read in. */
  parts: Uint8Array[];
  /** The signer the source's /.well-known/x402 publishes. */
  signer: string;
  /** Where the snapshot was read (provenance). */
  document: string;
  rules: CandidateRules;
  maxItems: number;
  /** The digest of a snapshot refused before: the same bytes are refused again without being parsed. */
  refusedDigest: string | null;
}

export type SnapshotCheck =
  | {
      ok: true;
      digest: string;
      generatedAt: string;
      resources: IndexedResource[];
      refused: Partial<Record<Refusal, number>>;
      /** Items past INDEX_MAX_ITEMS, not read. */
      overCap: number;
    }
  | { ok: false; digest: string; problem: "snapshot_refused"; reason: string; unchanged?: boolean };

/** The snapshot's resources when it holds (its items hash to contentHash, signed by `signer`), or why not. */
export async function checkSnapshot(task: SnapshotCheckTask): Promise<SnapshotCheck> {
  const bytes = Buffer.concat(task.parts);
  task.parts.length = 0;
  const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
  const refused = (reason: string, unchanged = false): SnapshotCheck => ({
    ok: false,
    digest,
    problem: "snapshot_refused",
    reason,
    unchanged,
  });
  if (digest === task.refusedDigest) return refused("the same bytes as a snapshot refused before", true);
  let snapshot: SignedSnapshotLike | null;
  try {
    snapshot = JSON.parse(bytes.toString("utf8")) as SignedSnapshotLike | null;
  } catch {
    return refused("not JSON");
  }
  const shaped =
    typeof snapshot === "object" &&
    snapshot !== null &&
    Array.isArray(snapshot.items) &&
    ["generatedAt", "contentHash", "signature", "signer"].every(
      (field) => typeof snapshot[field as keyof SignedSnapshotLike] === "string",
    );
  if (!shaped || !snapshot) return refused("not a signed snapshot");
  let problem: string | null;
  try {
    problem = await snapshotProblem(snapshot, task.signer);
  } catch {
    problem = "its items have no canonical form";
  }
  if (problem) return refused(problem);
  const { resources, refused: refusals } = candidatesOf(
    snapshot.items.slice(0, task.maxItems),
    task.document,
    task.rules,
    listingIdOf,
  );
  return {
    ok: true,
    digest,
    generatedAt: snapshot.generatedAt,
    resources,
    refused: refusals,
    overCap: Math.max(0, snapshot.items.length - task.maxItems),
  };
}

export default checkSnapshot;

// The signed snapshot's cryptography, one definition for the service and for mirrors: the content
// hash is SHA-256 over the RFC 8785 (JCS) serialisation of the items, and the signature is EIP-191
// personal_sign of `x402-marketplace snapshot <contentHash> <generatedAt>` by the published signer.
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { getAddress, recoverMessageAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/**
 * The JCS of the array fed to the hash one item at a time (the same bytes as canonicalizing the
 * whole array): a snapshot of 64 MiB is never a second string of 64 MiB.
 */
export function snapshotContentHash(items: unknown[]): string {
  const hash = createHash("sha256").update("[");
  items.forEach((item, i) => {
    if (i > 0) hash.update(",");
    hash.update(canonicalize(item ?? null) ?? "null");
  });
  return `sha256:${hash.update("]").digest("hex")}`;
}

export function snapshotMessage(contentHash: string, generatedAt: string): string {
  return `x402-marketplace snapshot ${contentHash} ${generatedAt}`;
}

export interface SnapshotSigner {
  address: `0x${string}`;
  sign(contentHash: string, generatedAt: string): Promise<Hex>;
}

export function snapshotSigner(privateKey: Hex): SnapshotSigner {
  const account = privateKeyToAccount(privateKey);
  return {
    address: account.address,
    sign: (contentHash, generatedAt) => account.signMessage({ message: snapshotMessage(contentHash, generatedAt) }),
  };
}

export interface SignedSnapshotLike {
  generatedAt: string;
  items: unknown[];
  contentHash: string;
  signature: string;
  signer: string;
}

/**
 * Why a snapshot must not be trusted, or null when it holds: its items hash to contentHash, and the
 * expected signer (taken from the marketplace's own documents, never from the snapshot) signed it.
 */
export async function snapshotProblem(snapshot: SignedSnapshotLike, expectedSigner: string): Promise<string | null> {
  if (snapshotContentHash(snapshot.items) !== snapshot.contentHash) return "the items do not hash to contentHash";
  let recovered: string;
  try {
    recovered = await recoverMessageAddress({
      message: snapshotMessage(snapshot.contentHash, snapshot.generatedAt),
      signature: snapshot.signature as Hex,
    });
  } catch {
    return "the signature is malformed";
  }
  if (getAddress(recovered) !== getAddress(expectedSigner))
    return `signed by ${getAddress(recovered)}, not by the published signer ${getAddress(expectedSigner)}`;
  if (getAddress(snapshot.signer) !== getAddress(expectedSigner)) return "the snapshot names another signer";
  return null;
}

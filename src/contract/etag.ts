import { createHash } from "node:crypto";

/** A weak ETag over the bytes of a representation. */
export function weakEtag(...parts: Array<string | Buffer>): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return `W/"${hash.digest("base64url").slice(0, 27)}"`;
}

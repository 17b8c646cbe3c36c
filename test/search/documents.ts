// Search documents for the engine's tests: each factory numbers its listings (ids `<prefix><n>`), gives
// each its own seller address and a host from its name, and lets a test override any field.
import type { SearchDocument } from "../../src/search/types.js";

export const payTo = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

export function documentFactory(prefix: string, listedAt: (n: number) => number) {
  let n = 0;
  return (serviceName: string, description: string, extra: Partial<SearchDocument> = {}): SearchDocument => ({
    id: `${prefix}${++n}`,
    serviceName,
    description,
    resource: `https://${serviceName.toLowerCase().replace(/\W+/g, "")}.example/api`,
    tags: [],
    payTo: payTo(n),
    priceMicros: 10_000,
    verified: false,
    health: "healthy",
    calls30d: 0,
    listedAt: listedAt(n),
    ...extra,
  });
}

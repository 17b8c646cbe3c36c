import { createHash } from "node:crypto";
import type { routeTable } from "../../generated/operations.js";

type DemoRoute = Extract<(typeof routeTable)[number], { area: "demo" }>;

/** The contract's demo routes: the `demo` area (spec/demo.tsp), all under `/kr-*`. */
export type DemoPath = DemoRoute["path"];

/** The method the contract gives demo route P. */
type DemoMethod<P extends DemoPath> = Extract<DemoRoute, { path: P }>["method"];

/**
 * First-party demo inventory: endpoints on this service's own origin under `/kr-*`, listed as
 * leftover seed rows (`metadata.leftoverSeed: true`) and hidden from catalog reads by default.
 * Each is a real x402-paid endpoint, paid to the marketplace wallet, so a seed row is never a
 * dead link.
 */
export interface SeedResource {
  /** A demo route of the contract, on this origin. */
  path: DemoPath;
  method: DemoRoute["method"];
  priceUsdc: string;
  description: string;
}

/** One seed row per demo route of the contract, with the route's own method: the compiler holds both. */
export const DEMO_RESOURCES: { readonly [P in DemoPath]: SeedResource & { path: P; method: DemoMethod<P> } } = {
  "/kr-echo": {
    path: "/kr-echo",
    method: "POST",
    priceUsdc: "0.01",
    description: "Demo: echoes the JSON body it receives, to test an x402 buyer end to end.",
  },
  "/kr-time": {
    path: "/kr-time",
    method: "GET",
    priceUsdc: "0.001",
    description: "Demo: the server's current time in ISO 8601 and Unix seconds.",
  },
  "/kr-fortune": {
    path: "/kr-fortune",
    method: "GET",
    priceUsdc: "0.02",
    description: "Demo: one short fortune-cookie sentence, different on every call.",
  },
};

export const SEED_INVENTORY: readonly SeedResource[] = Object.values(DEMO_RESOURCES);

/**
 * A seed row's id, the same on every start and every instance: a name-based UUID (version 5 layout)
 * of the route's method and path, never of the origin, so `/listing/{id}` links to a demo row keep
 * working across restarts, port changes and a new PUBLIC_BASE_URL.
 */
export function seedListingId(item: Pick<SeedResource, "method" | "path">): string {
  const hash = createHash("sha256").update(`x402-marketplace seed listing ${item.method} ${item.path}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

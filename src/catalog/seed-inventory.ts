import type { ServicePath } from "../market/links.js";

/** The contract's `/kr-*` demo routes. */
export type DemoPath = Extract<ServicePath, `/kr-${string}`>;

/**
 * First-party demo inventory: endpoints on this service's own origin under `/kr-*`, listed as
 * leftover seed rows (`metadata.leftoverSeed: true`) and hidden from catalog reads by default.
 * Each is a real x402-paid endpoint, paid to the marketplace wallet, so a seed row is never a
 * dead link.
 */
export interface SeedResource {
  /** A demo route of the contract, on this origin. */
  path: DemoPath;
  method: "GET" | "POST";
  priceUsdc: string;
  description: string;
}

export const SEED_INVENTORY: readonly SeedResource[] = [
  {
    path: "/kr-echo",
    method: "POST",
    priceUsdc: "0.01",
    description: "Demo: echoes the JSON body it receives, to test an x402 buyer end to end.",
  },
  {
    path: "/kr-time",
    method: "GET",
    priceUsdc: "0.001",
    description: "Demo: the server's current time in ISO 8601 and Unix seconds.",
  },
  {
    path: "/kr-fortune",
    method: "GET",
    priceUsdc: "0.02",
    description: "Demo: one short fortune-cookie sentence, different on every call.",
  },
];

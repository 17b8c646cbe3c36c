// A listing document with a week of health and usage history and every optional field, for the
// page renderer (the service fills these from its re-probes and the chain).
import type { components } from "../../generated/openapi.js";

type ListingDocument = components["schemas"]["ListingDocument"];

const DAYS = ["2030-01-01", "2030-01-02", "2030-01-03", "2030-01-04", "2030-01-05", "2030-01-06", "2030-01-07"];

export function historyDocument(): ListingDocument {
  const usage = {
    l30DaysTotalCalls: 42,
    l30DaysUniquePayers: 7,
    l30DaysVolumeUsdc: "0.84",
    lastCalledAt: "2030-01-07T12:00:00.000Z",
  };
  return {
    item: {
      x402Version: 2,
      type: "http",
      resource: "https://seller.example.com/api/summarise",
      method: "POST",
      description: "Summarises any public web page into five bullet points.",
      mimeType: "application/json",
      serviceName: "Summariser",
      tags: ["text", "summary"],
      iconUrl: "https://seller.example.com/icon.png",
      extensions: {
        bazaar: {
          info: {
            input: { type: "http", method: "POST", body: { url: "https://example.com" } },
            output: { type: "json", example: { bullets: ["<b>one</b>"] } },
          },
          schema: { type: "object", properties: { input: { type: "object" } } },
        },
      },
      lastUpdated: "2030-01-07T00:00:00.000Z",
      accepts: [
        {
          scheme: "exact",
          network: "eip155:8453",
          amount: "20000",
          asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
          payTo: "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
          maxTimeoutSeconds: 300,
          extra: { name: "USD Coin", version: "2" },
        },
      ],
      metadata: {
        marketplace: "Test market",
        listingId: "6f1c1d36-8a53-4c5e-9f0e-0d0b7c2f4a11",
        priceUsdc: "0.02",
        listedAt: "2030-01-01T00:00:00.000Z",
        expiresAt: "2030-01-31T00:00:00.000Z",
        salePayTo: "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
        saleTakeBps: 0,
        leftoverSeed: false,
        source: "listed",
        ownerVerified: true,
        health: {
          status: "healthy",
          uptime24h: 1,
          uptime7d: 0.93,
          uptime30d: 0.95,
          p50LatencyMs: 180,
          lastCheckedAt: "2030-01-07T11:00:00.000Z",
          lastHealthyAt: "2030-01-07T11:00:00.000Z",
        },
        usage: {
          ...usage,
          provenance: "settled-onchain",
          currentToBlock: "123456",
          raw: { ...usage, l30DaysTotalCalls: 50, l30DaysUniquePayers: 8, l30DaysVolumeUsdc: "1.00" },
          excluded: { not_x402_authorization: 30, self_payment: 2 },
        },
        sellerUsage: {
          ...usage,
          provenance: "settled-onchain",
          currentToBlock: "123456",
          raw: usage,
          excluded: {},
          listings: 2,
        },
      },
    },
    healthHistory: DAYS.map((day, index) => ({
      day,
      probes: 24,
      successes: 24 - index,
      uptime: (24 - index) / 24,
      p50LatencyMs: 150 + index * 10,
    })),
    lastProbes: [
      { at: "2030-01-07T11:00:00.000Z", ok: true, latencyMs: 170 },
      { at: "2030-01-07T10:00:00.000Z", ok: false, code: "timeout" },
    ],
    usageHistory: DAYS.map((day, index) => ({
      day,
      calls: index * 2,
      payers: index,
      volumeUsdc: (index * 0.04).toFixed(2),
    })),
    status: {
      state: "live",
      reasons: [{ code: "probe_passing", message: "The last probe of the seller's endpoint answered the listed 402." }],
    },
    history: [],
    links: { self: "https://market.example/listings/6f1c1d36-8a53-4c5e-9f0e-0d0b7c2f4a11" },
  };
}

// A junk-signature flood against the service as users run it (`npm start`): many connections send
// POST /listings/{id}/claim with a random signature and nonce (each a full ECDSA recovery) while
// catalog reads run. The owner limit is set out of reach, as for a flood from many addresses, so
// every claim reaches signature recovery: the worker pool keeps it off the request thread and its
// bounded queue refuses the excess (503 busy). Before, the reads fell to about 0.1% of their
// throughput and timed out. This test asserts what a reader sees: every read during the flood is
// answered, none times out, and no claim succeeds. The throughput share (reads during the flood
// against reads alone, target 80%) is a figure, not a behaviour: `npm run bench:flood` prints it
// beside a baseline.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startService, type ServiceProcess } from "../support/process.js";

const READ_SECONDS = 6;
const FLOOD_CONNECTIONS = 50;
const READ_CONNECTIONS = 4;

let service: ServiceProcess | undefined;
let dir: string | undefined;
let closeFacilitator: (() => void) | undefined;

beforeAll(async () => {
  // A remote facilitator is the one part that cannot run here; no chain is needed for this test.
  const facilitator = createServer((req, res) => {
    req.resume();
    res.setHeader("content-type", "application/json");
    if (req.url === "/supported")
      return res.end(
        JSON.stringify({
          kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }],
          extensions: [],
          signers: {},
        }),
      );
    res.end(JSON.stringify({ isValid: false, invalidReason: "invalid_exact_evm_signature" }));
  });
  await new Promise<void>((resolve) => facilitator.listen(0, "127.0.0.1", resolve));
  closeFacilitator = () => facilitator.close();
  dir = await mkdtemp(join(tmpdir(), "flood-"));
  service = await startService(
    {
      DATABASE_URL: `file:${join(dir, "marketplace.db")}`,
      FACILITATOR_URL: `http://127.0.0.1:${(facilitator.address() as AddressInfo).port}`,
      MARKETPLACE_PAY_TO: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      LOAD_SEED: "true",
      OWNER_RATE_PER_CLIENT: "100000",
      // The uncached reads stand for many clients' (they all come from here): neither the per-client
      // query limit nor the bound on uncached work is what this measures (test/http/uncached-work.test.ts).
      QUERY_RATE_PER_CLIENT: "1000000",
      UNCACHED_CONCURRENCY: "1000",
      UNCACHED_SHARE: "1",
    },
    { readyTimeoutMs: 150_000 },
  );
}, 180_000);

afterAll(async () => {
  service?.kill();
  closeFacilitator?.();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const int = (from: number, to: number) => from + Math.floor(Math.random() * (to - from + 1));

function reads(url: string): Promise<autocannon.Result> {
  // Distinct URLs (an offset of 0 spelled with 1 to 300 digits): the response cache rarely answers.
  return autocannon({
    url,
    connections: READ_CONNECTIONS,
    duration: READ_SECONDS,
    timeout: 10,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          path: `/discovery/resources?includeSeed=true&limit=${int(1, 50)}&offset=${"0".repeat(int(1, 300))}`,
        }),
      },
    ],
  });
}

it(
  "catalog reads are all answered, and none times out, while junk-signature claims flood the instance",
  { timeout: 240_000 },
  async () => {
    const seed = (await (await service!.fetch("/discovery/resources?includeSeed=true")).json()) as {
      items: Array<{ metadata: { listingId: string } }>;
    };
    const ids = seed.items.map((item) => item.metadata.listingId);
    expect(ids.length).toBeGreaterThan(0);
    // One junk claim answers 403 not_owner: the signature was recovered (to a stranger).
    const junk = () =>
      JSON.stringify({
        nonce: `0x${randomBytes(32).toString("hex")}`,
        deadline: Math.floor(Date.now() / 1000) + 300,
        signature: `0x${randomBytes(65).toString("hex")}`,
      });
    const one = await service!.fetch(`/listings/${ids[0]}/claim`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: junk(),
    });
    expect((await one.json()) as { error: string }).toMatchObject({ error: "not_owner" });

    const flood = autocannon({
      url: service!.url,
      connections: FLOOD_CONNECTIONS,
      duration: READ_SECONDS + 2,
      timeout: 10,
      requests: [
        {
          method: "POST",
          setupRequest: (request) => ({
            ...request,
            method: "POST",
            path: `/listings/${ids[int(0, ids.length - 1)]}/claim`,
            headers: { "content-type": "application/json" },
            body: junk(),
          }),
        },
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const during = await reads(service!.url);
    const flooded = await flood;

    const summary = `reads during the flood ${during.requests.total}; flood ${flooded.requests.total} answers ${JSON.stringify(flooded.statusCodeStats)}`;
    // The flood did reach signature work: 403 not_owner (recovered) or 503 busy (the queue was full);
    // no junk claim succeeded.
    const floodStatuses = Object.keys(flooded.statusCodeStats ?? {});
    expect(
      floodStatuses.every((status) => status === "403" || status === "503"),
      summary,
    ).toBe(true);
    expect(flooded.requests.total, summary).toBeGreaterThan(0);
    // Reads went on during the flood, and every one was answered.
    expect(during.requests.total, summary).toBeGreaterThan(0);
    expect(during.timeouts, summary).toBe(0);
    expect(during.non2xx + during.errors, summary).toBe(0);
    expect(service!.problems()).toEqual([]);
  },
);

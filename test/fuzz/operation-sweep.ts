// Every operation of generated/openapi.json, fuzzed over a real HTTP server on each database:
// malformed query values, headers, paths, methods, bodies, payments and JSON-RPC messages, derived
// from what the contract declares. Every answer must be below 500 (a well-formed but unverifiable
// payment may get the offline facilitator's 502/503), a JSON error in the contract's shape, free of
// internals; and afterwards the server still answers and nothing was saved.
// FUZZ_SEED=<n> replays the random part of a run; the seed is printed with every result.
// Each database has a test file of its own (operations-sqlite.test.ts, operations-postgres.test.ts):
// the sweep keeps one process busy for about a minute per database, and two files run side by side.
import { fileURLToPath } from "node:url";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listingInput } from "../storage/fixtures.js";
import { handSignedPayload } from "../support/payments.js";
import { contractApi } from "../support/harness.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { testDatabaseKinds, type TestDatabase, type TestDatabaseKind } from "../storage/databases.js";
import { casesOf, isPaid, keyOf, methodCases, wellFormedRequest, type CaseContext, type FuzzCase } from "./cases.js";
import { framingCases } from "./framing.js";
import { checkExchange, groupFindings, NODE_HTTP, type CheckContext, type Finding } from "./checks.js";
import { loadDocument, operationsOf, signatureOf, type Operation } from "./operations.js";
import { inBatches, RawClient, type RawResponse } from "./raw-http.js";
import { seededRandom, tamperedTokens, type JsonSchema } from "./values.js";

const SEED = Number(process.env.FUZZ_SEED ?? 402);
const CONCURRENCY = 8;
const FUZZ_ALIASES_ON = { sqlite: true, postgres: false } as const;
const BUYER_KEY = `0x${"5a".repeat(32)}` as const;
const CHECKOUT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

const SEEDED_DESCRIPTIONS = [
  "Weather & <tides> for \"any\" port, 'quoted'",
  "Ünïcödé résumé parser \u{1f600} with RTL \u202e text",
  "Plain paid endpoint for fuzzing, nothing special",
];

const document = loadDocument();
const operations = operationsOf(document);

interface Saved {
  statusCount: unknown;
  listings: number;
  payments: number;
}

/** The sweep on one database; skipped when that database is not configured (PostgreSQL without TEST_POSTGRES_URL). */
export function fuzzEveryOperation(kind: TestDatabaseKind["kind"]): void {
  const database = testDatabaseKinds().find((candidate) => candidate.kind === kind);
  // A skipped describe still collects its tests: the database is only created by its beforeAll.
  describe.skipIf(!database)(`every operation of the contract, fuzzed (${kind})`, () =>
    sweep(kind, () => database!.create()),
  );
}

function sweep(kind: TestDatabaseKind["kind"], create: TestDatabaseKind["create"]): void {
  let db: TestDatabase;
  let server: TestServer;
  let client: RawClient;
  let ctx: CaseContext;
  let checks: CheckContext;
  let before: Saved;
  const nodeHttpFindings: Finding[] = [];

  async function answer(request: Parameters<RawClient["send"]>[0]): Promise<RawResponse> {
    const exchange = await client.send(request);
    if ("failure" in exchange) throw new Error(`${request.method} ${request.target}: ${exchange.failure}`);
    return exchange.response;
  }

  async function saved(): Promise<Saved> {
    const response = await server.fetch("/status.json");
    expect(response.status).toBe(200);
    const status = (await response.json()) as Record<string, unknown>;
    return {
      statusCount: status.sellerListingCountRawKv,
      listings: await server.database.prisma.listing.count(),
      payments: await server.database.prisma.payment.count(),
    };
  }

  /** A well-formed payment for each paid operation, signed against the challenge of its own 402. */
  async function paymentsFor(context: CaseContext, random: () => number): Promise<void> {
    for (const operation of operations.filter(isPaid)) {
      const response = await answer(wellFormedRequest(context, operation));
      const header = response.headers["payment-required"];
      expect(response.status, `${keyOf(operation)} answers an unpaid request 402`).toBe(402);
      expect(header, `${keyOf(operation)} sends PAYMENT-REQUIRED`).toBeTruthy();
      const requirements = decodePaymentRequiredHeader(header!).accepts[0]!;
      const nonce = toHex(Uint8Array.from({ length: 32 }, () => Math.floor(random() * 256)));
      context.payments.set(
        keyOf(operation),
        (await handSignedPayload(BUYER_KEY, requirements, { nonce })) as unknown as Record<string, unknown>,
      );
    }
  }

  /**
   * Values the server hands out for a query parameter: `nextCursor` for `cursor`, found in the
   * operation's own first page (one row per page, so that there is a next one), then tampered with.
   */
  async function harvest(context: CaseContext, operation: Operation): Promise<void> {
    const parameters = operation.parameters.filter((parameter) => parameter.in === "query");
    if (operation.method !== "GET" || parameters.length === 0) return;
    const request = wellFormedRequest(context, operation);
    if (parameters.some((parameter) => parameter.name === "limit"))
      request.target += `${request.target.includes("?") ? "&" : "?"}limit=1`;
    const response = await answer(request);
    if (response.status !== 200 || !/json/.test(response.headers["content-type"] ?? "")) return;
    const text = response.body.toString("utf8");
    for (const parameter of parameters) {
      const field = `next${parameter.name[0]!.toUpperCase()}${parameter.name.slice(1)}`;
      const issued = new RegExp(`"${field}":"([^"]+)"`).exec(text)?.[1];
      if (issued) context.harvested.set(`${keyOf(operation)} ${parameter.name}`, tamperedTokens(issued));
    }
  }

  /** The tools a JSON-RPC operation offers, from its own tools/list (none for POST /a2a, which answers it with an error). */
  async function toolsOf(context: CaseContext, operation: Operation): Promise<CaseContext["tools"]> {
    const response = await answer(
      wellFormedRequest(context, operation, { jsonrpc: "2.0", id: 1, method: "tools/list" }),
    );
    expect(response.status, `${keyOf(operation)} answers tools/list`).toBe(200);
    const { result } = JSON.parse(response.body.toString("utf8")) as {
      result?: { tools: Array<{ name: string; inputSchema: JsonSchema }> };
    };
    return result?.tools ?? [];
  }

  beforeAll(async () => {
    db = await create();
    server = await startTestServer({ DATABASE_URL: db.url });
    client = new RawClient(Number(new URL(server.url).port));
    const random = seededRandom(SEED);
    ctx = {
      document,
      random,
      maxBodyBytes: server.contexts.listings.config.maxBodyBytes,
      payments: new Map(),
      tools: [],
      harvested: new Map(),
    };
    // A few rows, so that catalog answers render items and have a next page.
    for (const description of SEEDED_DESCRIPTIONS)
      await server.contexts.listings.store.createListing(listingInput({ description }), new Date());
    await paymentsFor(ctx, random);
    for (const operation of operations) await harvest(ctx, operation);
    for (const operation of operations.filter((candidate) => candidate.jsonRpc))
      ctx.tools.push(...(await toolsOf(ctx, operation)));
    const schema = new URL(db.url).searchParams.get("schema");
    checks = {
      api: await contractApi(),
      forbidden: [
        ["a stack trace", "    at "],
        ["a checkout path", CHECKOUT],
        ["a checkout path", "/work/"],
        ["a node_modules path", "node_modules/"],
        ["the database URL", db.url],
        ["the database file", db.url.replace(/^file:/, "").replace(/\/[^/]*$/, "")],
        ["a PostgreSQL URL", "postgresql://"],
        ["the database schema", schema ?? ""],
        ["exception text", "Error:"],
      ],
      // /facilitator.json names the facilitator on purpose; no error may.
      forbiddenInErrors: [["the facilitator URL", server.contexts.listings.payments.facilitator.url ?? ""]],
    };
    before = await saved();
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await server?.close();
    await db?.drop();
  });

  async function run(cases: FuzzCase[]): Promise<{ findings: Finding[]; ms: number; statuses: Map<string, number> }> {
    const findings: Finding[] = [];
    const statuses = new Map<string, number>();
    const started = Date.now();
    await inBatches(cases, CONCURRENCY, async (testCase) => {
      const exchange = await client.send(testCase.request);
      const status = "response" in exchange ? String(exchange.response.status) : "none";
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      findings.push(...checkExchange(testCase, exchange, checks));
    });
    return { findings, ms: Date.now() - started, statuses };
  }

  function report(
    title: string,
    count: number,
    ms: number,
    statuses: Map<string, number>,
    findings: Finding[],
  ): string {
    const groups = groupFindings(findings);
    const answered = [...statuses]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, n]) => `${status}: ${n}`)
      .join(", ");
    const lines = [
      `[fuzz ${kind}] ${title}: ${count} requests in ${(ms / 1000).toFixed(1)} s (${answered}), ${findings.length} findings in ${groups.length} groups (FUZZ_SEED=${SEED})`,
    ];
    for (const group of groups)
      lines.push(`  ${group.key} (${group.count}x)`, ...group.examples.map((example) => `      e.g. ${example}`));
    return lines.join("\n");
  }

  it(
    "answers every malformed request to every operation below 500, with a JSON error, leaking nothing",
    async () => {
      expect(operations.length, "the contract has operations").toBeGreaterThan(0);
      const perPath = new Map(operations.map((operation) => [operation.path, operation]));
      const signatures = new Set<string>();
      const aliases = new Set<string>();
      const cases = operations.flatMap((operation) => {
        const signature = signatureOf(operation);
        const alias = signatures.has(signature);
        signatures.add(signature);
        if (alias) aliases.add(keyOf(operation));
        // An alias is the same handler under another path: its routing is the same code on either
        // database, so PostgreSQL runs the distinct operations (a third fewer requests) and SQLite all.
        if (alias && !FUZZ_ALIASES_ON[kind]) return [];
        return casesOf(ctx, operation, { alias });
      });
      cases.push(...[...perPath.values()].flatMap((operation) => methodCases(ctx, operation)));
      const fuzzed = new Set(cases.map((testCase) => testCase.operation && keyOf(testCase.operation)));
      const expected = operations.filter((operation) => FUZZ_ALIASES_ON[kind] || !aliases.has(keyOf(operation)));
      expect(
        expected.filter((operation) => !fuzzed.has(keyOf(operation))).map(keyOf),
        "operations without a case",
      ).toEqual([]);

      const { findings: all, ms, statuses } = await run(cases);
      // What node:http refused before any route saw it is one finding, reported with the framing cases.
      nodeHttpFindings.push(...all.filter((finding) => finding.key.startsWith(NODE_HTTP)));
      const findings = all.filter((finding) => !finding.key.startsWith(NODE_HTTP));
      const summary = report(
        `${operations.length} operations (${signatures.size} distinct)`,
        cases.length,
        ms,
        statuses,
        findings,
      );
      console.log(summary);
      expect(
        groupFindings(findings).map((group) => group.key),
        summary,
      ).toEqual([]);
    },
    // A hang guard, not a speed bound: 35k requests (25k on PostgreSQL) take minutes on a loaded two-core machine.
    900_000,
  );

  it("answers malformed HTTP framing with a JSON error", async () => {
    const get = operations.find((operation) => operation.method === "GET" && !operation.path.includes("{"))!;
    const post =
      operations.find((operation) => operation.bodySchema && !operation.rawBody && !isPaid(operation)) ?? get;
    const cases = framingCases(get.path, post.path);
    const { findings: own, ms, statuses } = await run(cases);
    const findings = [...own, ...nodeHttpFindings];
    const summary = report(
      "HTTP framing, and node:http's refusals met by the operation cases",
      cases.length,
      ms,
      statuses,
      findings,
    );
    console.log(summary);
    expect(
      groupFindings(findings).map((group) => group.key),
      summary,
    ).toEqual([]);
  });

  it("still answers afterwards, and nothing was saved", async () => {
    const response = await server.fetch("/status.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await saved()).toEqual(before);
    expect(before.payments).toBe(0);
  });
}

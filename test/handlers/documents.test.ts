// The documents area: every route of it answers, then the agent-facing documents of every area: every
// alias answers the same bytes, every link of every document answers, the facts agree with the fee
// card, and each format (A2A card, plugin manifest, llms.txt) has the fields its consumers read.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalOf, CONTRACT_VERSION } from "../../generated/operations.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { describeAreaRoutes, jsonOf, routesOf, type RouteAnswer } from "./area-routes.js";

const ORIGIN = "https://market.example.test";
const contract = JSON.parse(readFileSync("generated/openapi.json", "utf8")) as {
  paths: Record<string, { get?: { operationId: string } }>;
};

/** The agent documents (the documents area but the contract itself), each at its first route. */
const AGENT_DOCUMENTS: Record<string, string> = {};
for (const route of routesOf("documents")) {
  if (route.canonical === "getOpenApi" || route.canonical === "redirectOpenApiYaml") continue;
  AGENT_DOCUMENTS[route.canonical] ??= route.path;
}
const POLICY = ["Not tax or investment advice.", "Lookups of personal phone numbers or e-mail addresses are refused."];

/** Every free GET document of the contract, by canonical operation, with all its paths. */
const documents = new Map<string, string[]>();
for (const [path, item] of Object.entries(contract.paths)) {
  if (!item.get || path === "/openapi.yaml") continue;
  const canonical = canonicalOf[item.get.operationId as keyof typeof canonicalOf];
  documents.set(canonical, [...(documents.get(canonical) ?? []), path]);
}
const target = (path: string) => (path.startsWith("/discovery/search") ? `${path}?query=weather` : path);

let server: TestServer;
const bodies = new Map<string, { status: number; type: string; text: string }>();

async function get(path: string) {
  const response = await server.fetch(path, { redirect: "manual" });
  return { status: response.status, type: response.headers.get("content-type") ?? "", text: await response.text() };
}
const json = <T = Record<string, unknown>>(path: string) => JSON.parse(bodies.get(path)!.text) as T;

beforeAll(async () => {
  server = await startTestServer({ PUBLIC_BASE_URL: ORIGIN, LOAD_SEED: "true" });
  for (const paths of documents.values()) for (const path of paths) bodies.set(path, await get(target(path)));
});
afterAll(async () => {
  await server?.close();
});

/** A text document: its media type with charset=utf-8, beginning as its readers expect. */
const text = (mediaType: string, start: string) => (answer: RouteAnswer) => {
  expect(answer.headers.get("content-type")).toBe(`${mediaType}; charset=utf-8`);
  expect(answer.text.startsWith(start), answer.text.slice(0, 80)).toBe(true);
};

describeAreaRoutes("documents", () => server, {
  getSellPlaybook: {
    status: 200,
    check: (answer) =>
      expect(jsonOf(answer)).toMatchObject({
        title: expect.stringMatching(/^Sell: /),
        script: `${ORIGIN}/curl-list.sh`,
        policy: POLICY,
      }),
  },
  getBuyPlaybook: {
    status: 200,
    check: (answer) =>
      expect(jsonOf(answer)).toMatchObject({
        title: expect.stringMatching(/^Buy: /),
        script: `${ORIGIN}/examples/buy.sh`,
        policy: POLICY,
      }),
  },
  getPlaybook: {
    status: 200,
    check(answer) {
      const playbook = jsonOf(answer);
      expect(playbook).toMatchObject({ version: CONTRACT_VERSION, policy: POLICY });
      expect(playbook.sell.length * playbook.buy.length).toBeGreaterThan(0);
    },
  },
  getQuickstart: { status: 200, check: (answer) => expect(jsonOf(answer).steps).toHaveLength(3) },
  getInvite: {
    status: 200,
    check: (answer) =>
      expect(jsonOf(answer)).toMatchObject({ url: `${ORIGIN}/invite.json`, start: `${ORIGIN}/start.json` }),
  },
  getJoinCard: {
    status: 200,
    check: (answer) =>
      expect(jsonOf(answer)).toMatchObject({
        schema: `${ORIGIN}/listings/schema`,
        example: `${ORIGIN}/listings/example`,
      }),
  },
  getHowTo: {
    status: 200,
    check: (answer) => expect(jsonOf(answer).sell.length * jsonOf(answer).buy.length).toBeGreaterThan(0),
  },
  getExamples: { status: 200, check: (answer) => expect(jsonOf(answer).examples.length).toBeGreaterThan(0) },
  getListScript: { status: 200, check: text("text/x-shellscript", "#!/usr/bin/env bash\n") },
  getBuyScript: { status: 200, check: text("text/x-shellscript", "#!/usr/bin/env bash\n") },
  getMarketplaceCard: {
    status: 200,
    check: (answer) =>
      expect(jsonOf(answer)).toMatchObject({ catalog: `${ORIGIN}/bazaar.json`, mcp: `${ORIGIN}/mcp`, escrow: false }),
  },
  getIntegrationCard: {
    status: 200,
    check: (answer) => expect(jsonOf(answer)).toMatchObject({ clientPackageRequired: false, escrow: false }),
  },
  getAgents: {
    status: 200,
    check: (answer) => expect(jsonOf(answer).agents.map((agent: { id: string }) => agent.id)).toContain("seller"),
  },
  getAgentsText: { status: 200, check: text("text/plain", "# x402 agent marketplace: agents directory\n") },
  getAgentCard: {
    status: 200,
    check: (answer) =>
      expect(jsonOf(answer)).toMatchObject({
        protocolVersion: "0.3.0",
        url: `${ORIGIN}/a2a`,
        preferredTransport: "JSONRPC",
      }),
  },
  getPluginManifest: {
    status: 200,
    check: (answer) =>
      expect(jsonOf(answer)).toMatchObject({ schema_version: "v1", api: { url: `${ORIGIN}/openapi.json` } }),
  },
  getLlmsText: { status: 200, check: text("text/plain", "# x402 agent marketplace\n") },
  getLlmsFullText: { status: 200, check: text("text/plain", "# x402 agent marketplace: the full how-to\n") },
  getOpenApi: {
    status: 200,
    check(answer) {
      // The compiled contract, byte for byte, under a validator a client can revalidate with.
      expect(answer.text).toBe(readFileSync("generated/openapi.json", "utf8"));
      expect(answer.headers.get("etag")).toMatch(/^W\//);
    },
  },
  redirectOpenApiYaml: {
    status: 307,
    check: (answer) => expect(answer.headers.get("location")).toBe(`${ORIGIN}/openapi.json`),
  },
});

describe("agent documents", () => {
  it("every alias of every document returns identical bytes and media type", () => {
    let compared = 0;
    for (const [canonical, paths] of documents) {
      // The /kr-* demo endpoints share an operation but are different resources, not aliases.
      if (canonical === "getDemoResource") continue;
      const first = bodies.get(paths[0]!)!;
      for (const path of paths.slice(1)) {
        const other = bodies.get(path)!;
        expect({ path, status: other.status, type: other.type }, canonical).toEqual({
          path,
          status: first.status,
          type: first.type,
        });
        expect(other.text === first.text, `${path} has the bytes of ${paths[0]}`).toBe(true);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(90);
  });

  it("every link of this origin in every document answers", async () => {
    const pattern = new RegExp(`${ORIGIN.replaceAll(".", "\\.")}[^\\s"'<>()\\[\\]{}\`\\\\]*`, "g");
    const links = new Set<string>();
    for (const { text } of bodies.values()) {
      for (const [match] of text.matchAll(pattern)) links.add(match.replace(/[.,;:]+$/, ""));
      // Links are built from PUBLIC_BASE_URL, never from the address the server listens on.
      expect(text).not.toContain(server.url);
    }
    // The bare origin names the service (a linkset anchor, a script's default BASE_URL), not a route.
    links.delete(ORIGIN);
    links.delete(`${ORIGIN}/`);
    expect(links.size).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const link of links) {
      const url = new URL(link);
      // 400 is an answer: some documents show a route whose required query the reader fills in.
      const { status } = await get(`${url.pathname}${url.search}`);
      if (status === 404 || status === 405 || status >= 500) failures.push(`${status} ${link}`);
    }
    expect(failures).toEqual([]);
  });

  it("agree with the fee card on fee, wallet, token, network and period", () => {
    const fee = json<{ payTo: string; asset: string; network: string; usdc: string; amount: string }>("/fee.json");
    const summary = {
      usdc: fee.usdc,
      payTo: fee.payTo,
      asset: fee.asset,
      network: fee.network,
      ttlDays: 30,
      path: "/listings",
      method: "POST",
    };
    for (const [operation, path] of Object.entries(AGENT_DOCUMENTS)) {
      const { type, text } = bodies.get(path)!;
      if (!type.startsWith("application/json")) {
        if (operation.startsWith("getLlms"))
          expect(text, path).toContain(`${fee.usdc} USDC (${fee.amount} atomic units)`);
        continue;
      }
      const body = JSON.parse(text) as { listingFee?: unknown; feeAtomic?: string };
      if (body.listingFee) expect(body.listingFee, path).toEqual(summary);
      if (body.feeAtomic) expect(body.feeAtomic, path).toBe(fee.amount);
    }
    const card = json<{ list: Record<string, unknown> }>("/integration.json");
    expect(card.list).toMatchObject({
      feeUsdc: fee.usdc,
      feeAtomic: fee.amount,
      payTo: fee.payTo,
      asset: fee.asset,
      network: fee.network,
      scheme: "exact",
    });
    expect(bodies.get("/llms.txt")!.text).toContain(`payTo ${fee.payTo}`);
  });

  it("state the policy in the playbooks and llms.txt", () => {
    for (const path of ["/sell.json", "/buy.json", "/playbook.json"])
      expect(json<{ policy: string[] }>(path).policy).toEqual(POLICY);
    for (const path of ["/llms.txt", "/llms-full.txt"])
      for (const statement of POLICY) expect(bodies.get(path)!.text).toContain(statement);
  });
});

describe("each document's own shape", () => {
  it("quickstart: validate, then pay POST /listings, then buy from the listings", () => {
    const { steps } = json<{ steps: Array<{ method?: string; url?: string; title: string }> }>("/start.json");
    expect(steps.map((step) => [step.method, step.url])).toEqual([
      ["POST", `${ORIGIN}/listings/validate`],
      ["POST", `${ORIGIN}/listings`],
      ["GET", `${ORIGIN}/discovery/search?query=weather&health=healthy`],
    ]);
  });

  it("integration card: list, buy, mcp and discovery; no client package; no escrow", () => {
    const card = json<
      Record<string, Record<string, unknown> & { tools?: string[] }> & { note: string; version: string }
    >("/integration.json");
    expect(card).toMatchObject({ version: "1.65.0", role: "marketplace", clientPackageRequired: false, escrow: false });
    expect(card.note).toMatch(/No client package is required/);
    expect(card.note).toMatch(/never holds funds in escrow/);
    expect(Object.keys(card.list!)).toEqual(
      expect.arrayContaining([
        "method",
        "path",
        "feeUsdc",
        "payTo",
        "network",
        "asset",
        "body",
        "schema",
        "challenge",
        "curl",
      ]),
    );
    expect(card.list).toMatchObject({
      method: "POST",
      path: "/listings",
      schema: `${ORIGIN}/listings/schema`,
      challenge: `${ORIGIN}/listings/challenge`,
      curl: `${ORIGIN}/curl-list.sh`,
    });
    expect(Object.keys(card.buy!)).toEqual(["catalog", "feed", "playbook", "note"]);
    expect(card.mcp).toEqual({
      url: `${ORIGIN}/mcp`,
      tools: ["list_market", "how_to_sell", "how_to_buy", "validate_listing"],
      serverCard: `${ORIGIN}/mcp-server.json`,
    });
    expect(card.discovery).toEqual({
      start: `${ORIGIN}/start.json`,
      playbook: `${ORIGIN}/playbook.json`,
      openapi: `${ORIGIN}/openapi.json`,
      status: `${ORIGIN}/status.json`,
    });
  });

  it("A2A agent card: the AgentCard fields, also at /.well-known/agent-card.json and /.well-known/agent.json", () => {
    const card = json<Record<string, unknown> & { skills: Array<Record<string, unknown>> }>(
      "/.well-known/agent-card.json",
    );
    expect(card).toMatchObject({
      protocolVersion: "0.3.0",
      url: `${ORIGIN}/a2a`,
      preferredTransport: "JSONRPC",
      supportedInterfaces: [
        { url: `${ORIGIN}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
        { url: `${ORIGIN}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      ],
      version: "1.70.0",
      capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
      defaultInputModes: ["application/json", "text/plain"],
      defaultOutputModes: ["application/json"],
    });
    expect(typeof card.name).toBe("string");
    expect(card.description).toContain(`message/send, JSON-RPC) is at ${ORIGIN}/a2a`);
    expect(card.description).not.toMatch(/not offered/);
    expect(bodies.get("/.well-known/agent.json")!.text).toBe(bodies.get("/.well-known/agent-card.json")!.text);
    expect(card.skills.map((skill) => skill.id)).toEqual([
      "list_market",
      "how_to_sell",
      "how_to_buy",
      "validate_listing",
    ]);
    for (const skill of card.skills)
      expect(Object.keys(skill)).toEqual(expect.arrayContaining(["id", "name", "description", "tags"]));
  });

  it("plugin manifest: schema v1, no auth, the OpenAPI description, nothing it cannot fill truthfully", () => {
    const manifest = json("/ai-plugin.json");
    expect(manifest).toMatchObject({
      schema_version: "v1",
      name_for_model: "x402_agent_marketplace",
      auth: { type: "none" },
      api: { type: "openapi", url: `${ORIGIN}/openapi.json`, is_user_authenticated: false },
    });
    expect(String(manifest.description_for_human).length).toBeLessThanOrEqual(100);
    expect(manifest).not.toHaveProperty("logo_url");
    expect(manifest).not.toHaveProperty("contact_email");
    expect(manifest).not.toHaveProperty("legal_info_url");
  });

  it("llms.txt: an H1, a summary blockquote, then sections of links", () => {
    const lines = bodies.get("/llms.txt")!.text.split("\n");
    expect(lines[0]).toBe("# x402 agent marketplace");
    expect(lines[1]).toBe("");
    expect(lines[2]).toMatch(/^> .*never holds funds in escrow\.$/);
    const sections = lines.filter((line) => line.startsWith("## "));
    expect(sections).toEqual(["## Sell", "## Buy", "## Discovery", "## Optional"]);
    const firstSection = lines.indexOf("## Sell");
    for (const line of lines.slice(firstSection).filter((line) => line && !line.startsWith("## "))) {
      expect(line).toMatch(new RegExp(`^- \\[[^\\]]+\\]\\(${ORIGIN.replaceAll(".", "\\.")}/[^)\\s]+\\): \\S`));
    }
    const full = bodies.get("/llms-full.txt")!.text;
    expect(full).toContain("## Sell: list your x402 endpoint");
    expect(full).toContain(`POST ${ORIGIN}/listings/validate`);
    expect(full).toContain("## Buy: find a listing and pay its seller");
  });

  it("agents directory: the same entries as JSON and as text", () => {
    const directory = json<{ agents: Array<{ id: string; start: string; read: string[] }> }>("/agents.json");
    const text = bodies.get("/agents.txt")!.text;
    expect(directory.agents.map((agent) => agent.id)).toEqual([
      "seller",
      "buyer",
      "mcp-client",
      "a2a-client",
      "plugin-host",
      "crawler",
    ]);
    for (const agent of directory.agents) {
      expect(text).toContain(`${agent.id}: `);
      expect(text).toContain(`  start: ${agent.start}\n`);
      for (const url of agent.read) expect(text).toContain(`  read: ${url}\n`);
    }
  });

  it("scripts: bash that parses, saying what they need, defaulting to this marketplace", () => {
    for (const path of ["/examples/list.sh", "/examples/buy.sh"]) {
      const { text } = bodies.get(path)!;
      expect(text.startsWith("#!/usr/bin/env bash\n"), path).toBe(true);
      expect(text).toContain(`BASE_URL="\${BASE_URL:-${ORIGIN}}"`);
      for (const word of ["Needs: bash, curl, and Node.js 20", "BUYER_PRIVATE_KEY", "CHAIN_FILE", "X402_SDK_DIR"])
        expect(text, path).toContain(word);
      expect(text).not.toContain("@@");
      execFileSync("bash", ["-n"], { input: text });
    }
    expect(bodies.get("/examples/list.sh")!.text).toContain("LISTING_FILE");
  });
});

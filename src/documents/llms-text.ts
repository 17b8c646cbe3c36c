// /llms.txt (the llms.txt format: H1, summary blockquote, sections of links) and /llms-full.txt
// (the full how-to, rendered from the same playbooks as the JSON documents).
import type { MarketFacts } from "../market/facts.js";
import { marketSummary, MCP_TOOLS, POLICY } from "./agent-facts.js";
import { buyPlaybook, EXAMPLE_QUERY, sellPlaybook, type PlaybookStep } from "./playbooks.js";
import { linkTo, type LinkName } from "../market/links.js";

type LinkLine = [title: string, target: LinkName | string, note: string];

function linkSections(market: MarketFacts): Array<[string, LinkLine[]]> {
  return [
    [
      "Sell",
      [
        ["Sell playbook", "sell", "the listing recipe, step by step"],
        ["Join card", "join", "the fee, then validate, then list"],
        ["Listing schema", "schema", "JSON Schema of the POST /listings body"],
        ["Example listing", "example", "a listing body that passes the schema"],
        ["Dry run", "validate", "GET explains it; POST a listing to validate it for free"],
        ["Fee challenge", "challenge", "the x402 challenge an unpaid POST /listings presents, as JSON"],
        ["Fee card", "fee", `${market.feeUsdc} USDC to ${market.payTo} on ${market.network}`],
        ["List script", "curlList", "bash and curl: validate, then list paying the fee"],
      ],
    ],
    [
      "Buy",
      [
        ["Buy playbook", "buy", "find a listing and pay its seller directly"],
        ["Search", linkTo(market, "/discovery/search", { query: EXAMPLE_QUERY }), "text search of the catalog"],
        ["Catalog", "catalog", "every active listing, foreign listings first"],
        ["Foreign listings", "foreign", "third-party listings only"],
        ["Feed", "feed", "newest first; poll with since"],
        ["Buy script", "buyScript", "bash and curl: find a listing and buy it"],
      ],
    ],
    [
      "Discovery",
      [
        ["Start", "start", "validate, pay POST /listings, buy from the listings"],
        ["Machine playbook", "playbook", "selling and buying as JSON steps"],
        ["Discovery index", "discovery", "resources and search"],
        ["Integration card", "integration", "list, buy, MCP and discovery in one object"],
        ["Agents directory", "agents", "where each kind of agent starts"],
        ["A2A agent card", "agentCard", "skills in the A2A AgentCard format"],
        ["Plugin manifest", "plugin", "ai-plugin.json pointing at the OpenAPI description"],
        ["OpenAPI", "openapi", "every route, parameter and response"],
        ["Status", "status", "counts and the listing fee"],
        ["MCP server", "mcp", `Streamable HTTP; tools ${MCP_TOOLS.map((tool) => tool.name).join(", ")}`],
      ],
    ],
    [
      "Optional",
      [
        ["Full text", "llmsFull", "everything above as one text"],
        ["Crawl list", "crawl", "every free route in priority order"],
        ["Linkset", "linkset", "RFC 9264 links of the sell, buy, discovery and MCP endpoints"],
        ["Examples", "examples", "index of free examples"],
        ["Agents directory (text)", "agentsText", "the agents directory as plain text"],
      ],
    ],
  ];
}

function resolve(market: MarketFacts, target: LinkName | string): string {
  return target.startsWith("http") ? target : linkTo(market, target as LinkName);
}

function feeLine(market: MarketFacts): string {
  return (
    `Listing fee: ${market.feeUsdc} USDC (${market.feeAtomic} atomic units), x402 exact scheme (EIP-3009 transferWithAuthorization) on ${market.network}, ` +
    `asset ${market.asset}, payTo ${market.payTo}; a listing is active for ${market.ttlDays} days.`
  );
}

export function llmsText(market: MarketFacts): string {
  const lines = [
    `# ${market.name}`,
    "",
    `> ${marketSummary(market)}`,
    "",
    feeLine(market),
    "Reading the catalog and every document below is free: no account, no API key, no client package.",
    `Policy: ${POLICY.join(" ")}`,
  ];
  for (const [section, links] of linkSections(market)) {
    lines.push("", `## ${section}`, "");
    for (const [title, target, note] of links) lines.push(`- [${title}](${resolve(market, target)}): ${note}`);
  }
  lines.push("");
  return lines.join("\n");
}

function renderSteps(steps: PlaybookStep[]): string[] {
  const lines: string[] = [];
  for (const step of steps) {
    lines.push(`${step.step}. ${step.title}`, `   ${step.action}`);
    if (step.method && step.url) lines.push(`   ${step.method} ${step.url}`);
    for (const [name, value] of Object.entries(step.headers ?? {})) lines.push(`   ${name}: ${value}`);
    if (step.body !== undefined) lines.push(`   body: ${JSON.stringify(step.body)}`);
    lines.push(`   expect: ${step.expect}`, "");
  }
  return lines;
}

export function llmsFullText(market: MarketFacts): string {
  const sell = sellPlaybook(market);
  const buy = buyPlaybook(market);
  const lines = [
    `# ${market.name}: the full how-to`,
    "",
    `> ${marketSummary(market)}`,
    "",
    "## Policy",
    "",
    ...POLICY.map((statement) => `- ${statement}`),
    "",
    "## Listing fee",
    "",
    feeLine(market),
    `The same challenge an unpaid POST /listings presents is at ${linkTo(market, "challenge")}; the compact fee card is at ${linkTo(market, "fee")}.`,
    "",
    `## ${sell.title}`,
    "",
    sell.summary,
    "",
    "You need:",
    ...sell.requirements.map((requirement) => `- ${requirement}`),
    "",
    ...renderSteps(sell.steps),
    "Answers of POST /listings:",
    ...sell.statuses.map(({ status, meaning }) => `- ${status}: ${meaning}`),
    "",
    `A bash script that does all of this with curl: ${sell.script}`,
    "",
    `## ${buy.title}`,
    "",
    buy.summary,
    "",
    ...renderSteps(buy.steps),
    ...buy.notes.map((note) => `- ${note}`),
    "",
    `A bash script that finds a listing and buys it: ${buy.script}`,
    "",
    "## MCP",
    "",
    `The MCP server at ${linkTo(market, "mcp")} speaks JSON-RPC 2.0 over Streamable HTTP (initialize, tools/list, tools/call, ping). It is free. Tools:`,
    ...MCP_TOOLS.map((tool) => `- ${tool.name}: ${tool.description}`),
    "",
    "## Documents",
    "",
  ];
  for (const [section, links] of linkSections(market)) {
    for (const [title, target, note] of links)
      lines.push(`- ${section} / ${title}: ${resolve(market, target)} (${note})`);
  }
  lines.push("");
  return lines.join("\n");
}

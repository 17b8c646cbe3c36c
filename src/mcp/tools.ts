// The four tools of the MCP server. tools/list, /mcp/tools.json and the server card all read
// these registrations through the live server, so there is no second copy of any schema.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import type { components, operations } from "../../generated/openapi.js";
import { catalogState, searchPage } from "../queries/catalog.js";
import { searchDocument, type DiscoveryDocument } from "../documents/discovery.js";
import { MCP_TOOLS } from "../documents/agent-facts.js";
import { buyPlaybook, sellPlaybook } from "../documents/playbooks.js";
import { HttpError } from "../contract/errors.js";
import { isBusy } from "../workers/work-gate.js";
import type { McpServices } from "./context.js";
import { isStorageError, logUnexpected } from "../contract/unexpected-errors.js";
import { dryRunListing } from "../listing/dry-run.js";
import type { ListingRequest, ValidationReport } from "../listing/listing-checks.js";
import { contractSchema, queryArguments } from "./contract-schemas.js";

type Schemas = components["schemas"];
type ToolName = (typeof MCP_TOOLS)[number]["name"];

/** Runs one catalog read under the instance's bound on uncached work (src/http/work-gate.ts). */
export type CatalogTurn = <T>(work: () => Promise<T>) => Promise<T>;

export interface ToolContext {
  services: McpServices;
  /** The caller's address: the seller probe of validate_listing is rate-limited per client. */
  clientIp: string;
}

/** The one-line purpose every agent document also states; the tool description goes on from there. */
function purposeOf(name: ToolName): string {
  return MCP_TOOLS.find((tool) => tool.name === name)!.description;
}

function result(text: string, structuredContent: object): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: structuredContent as Record<string, unknown> };
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * A 4xx of the shared code paths (a bad cursor, for instance) is the caller's mistake: a tool error
 * naming it. Anything else is logged and reported without internals.
 */
async function answering(services: McpServices, tool: string, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof HttpError && (error.status < 500 || isBusy(error))) return toolError(error.message);
    logUnexpected(services.logger, error, { tool }, "MCP tool failed");
    return toolError(
      isStorageError(error)
        ? `${tool} failed: the catalog database did not answer. Try again shortly.`
        : `${tool} failed on the server; the failure has been logged. Try again later.`,
    );
  }
}

const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

/** list_market mirrors GET /search: `query` optional (omitted, it lists everything), the same seed filters. */
const SEARCH_OPERATION = "searchCatalog";
/** What the HTTP handler of that operation receives, and so what the tool's arguments must be. */
type SearchArguments = NonNullable<operations[typeof SEARCH_OPERATION]["parameters"]["query"]>;

/**
 * The arguments of list_market: the query parameters of GET /search in the contract, converted
 * once. The cast only names the type: a test holds the properties equal to those parameters.
 */
const listMarketInput = (): z.ZodType<SearchArguments> => queryArguments(SEARCH_OPERATION) as z.ZodType<SearchArguments>;

function catalogText(document: DiscoveryDocument): string {
  const { items, pagination } = document;
  const scope = document.query ? ` matching ${JSON.stringify(document.query)}` : "";
  if (items.length === 0) {
    const near = document.nearMisses?.length
      ? ` Nothing matches well enough to buy; closest, not answers: ${document.nearMisses.map((item) => `${item.serviceName ?? item.resource} (${item.resource})`).join(", ")}.`
      : "";
    return `No listings${scope} at offset ${pagination.offset} (total ${pagination.total}).${near}`;
  }
  const lines = items.map((item, index) => {
    const pay = item.accepts[0];
    const { health } = item.metadata;
    const failing = health.failureCode ? ` (${health.failureCode})` : "";
    const indexed = item.metadata.source === "indexed" ? `; indexed from ${item.metadata.provenance?.source ?? "another catalog"}, not a paid listing` : "";
    const match = item.metadata.match ? `[${item.metadata.match} match] ` : "";
    return `${pagination.offset + index + 1}. ${match}${item.description}\n   ${item.metadata.priceUsdc} USDC, ${item.method} ${item.resource}, pays ${pay?.payTo ?? item.metadata.salePayTo} on ${pay?.network ?? "?"}; health ${health.status}${failing}${indexed}`;
  });
  const next = pagination.nextCursor ? `\nNext page: call list_market again with cursor ${JSON.stringify(pagination.nextCursor)}.` : "\nThis is the last page.";
  return (
    `${items.length} of ${pagination.total} listings${scope} (from ${pagination.offset + 1}):\n${lines.join("\n")}${next}\n` +
    "Buy from each item's resource directly: it answers HTTP 402; pay its accepts[0] (the seller), not the marketplace."
  );
}

interface PlaybookLike {
  title: string;
  summary: string;
  requirements?: string[];
  steps: Schemas["PlaybookStep"][];
  notes?: string[];
  policy: string[];
}

function playbookText(playbook: PlaybookLike): string {
  const list = (title: string, lines: string[] | undefined) => (lines?.length ? [`${title}:`, ...lines.map((line) => `- ${line}`)] : []);
  const steps = playbook.steps.map((step) => {
    const call = step.method && step.url ? `\n   ${step.method} ${step.url}` : "";
    return `${step.step}. ${step.title}: ${step.action}${call}\n   Expect: ${step.expect}`;
  });
  return [
    `${playbook.title}`,
    playbook.summary,
    ...list("You need", playbook.requirements),
    "Steps:",
    ...steps,
    ...list("Notes", playbook.notes),
    ...list("Policy", playbook.policy),
  ].join("\n");
}

function reportText(report: ValidationReport): string {
  const lines = report.checks.map((check) => `${check.ok ? "ok  " : "FAIL"} ${check.name}${check.code ? ` (${check.code})` : ""}: ${check.reason ?? ""}`);
  const verdict = report.ok
    ? "Every check passed: this body is ready for POST /listings (the fee is paid there, with x402)."
    : `${report.checks.filter((check) => !check.ok).length} check(s) failed: fix them before paying for POST /listings.`;
  return `${verdict}\n${lines.join("\n")}\nNothing was charged and nothing was saved.`;
}

export function registerMarketTools(server: McpServer, { services, clientIp }: ToolContext, turn: CatalogTurn = (work) => work()): void {
  const { market } = services;

  server.registerTool(
    "list_market",
    {
      title: "List the market",
      description:
        `${purposeOf("list_market")} The same search, filters and paging as GET /search, with the same arguments as its query parameters. ` +
        "offset is ignored when cursor is given; a cursor continues only the search it came from. " +
        "health=healthy (advised before buying) keeps only listings whose endpoint answered the marketplace's last re-probes with the listed terms; " +
        "the default, any, shows every listing with its metadata.health (unhealthy: down; drifted: its live terms changed; unknown: not re-probed yet). " +
        "Each item names its resource, method, price and accepts[0] (what to pay whom): buy from the seller directly.",
      inputSchema: listMarketInput(),
      outputSchema: contractSchema("DiscoveryDocument"),
      annotations: READ_ONLY,
    },
    (args) =>
      answering(services, "list_market", () =>
        turn(async () => {
          const document = searchDocument(services, await searchPage(services, await catalogState(services), args, "search"));
          return result(catalogText(document), document);
        }),
      ),
  );

  server.registerTool(
    "how_to_sell",
    {
      title: "How to sell",
      description:
        `${purposeOf("how_to_sell")} Steps with URLs, the ${market.feeUsdc} USDC listing fee (x402, ${market.network}), the body schema and an example; ` +
        "then how the owner (sellerPayTo) updates, delists or claims a listing with an EIP-712 signature, and how anyone refreshes it.",
      inputSchema: z.strictObject({}),
      outputSchema: contractSchema("SellPlaybook"),
      annotations: READ_ONLY,
    },
    () => {
      const playbook = sellPlaybook(market);
      return result(playbookText(playbook), playbook);
    },
  );

  server.registerTool(
    "how_to_buy",
    {
      title: "How to buy",
      description: `${purposeOf("how_to_buy")} Find a listing, call its resource, pay the seller's own x402 challenge; the marketplace holds no funds.`,
      inputSchema: z.strictObject({}),
      outputSchema: contractSchema("BuyPlaybook"),
      annotations: READ_ONLY,
    },
    () => {
      const playbook = buyPlaybook(market);
      return result(playbookText(playbook), playbook);
    },
  );

  server.registerTool(
    "validate_listing",
    {
      title: "Validate a listing (dry run)",
      description:
        `${purposeOf("validate_listing")} The arguments are the body of POST /listings. The answer is the per-check report of POST /listings/validate, ` +
        "including a probe of the seller's endpoint (it must answer 402 with a matching x402 challenge).",
      inputSchema: contractSchema("ListingRequest"),
      outputSchema: contractSchema("ValidationReport"),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    },
    (args) =>
      answering(services, "validate_listing", async () => {
        const reply = await dryRunListing(args as ListingRequest, clientIp, services.probe);
        if (reply.status === 200 || reply.status === 422) {
          const report = reply.body as ValidationReport;
          return result(reportText(report), report);
        }
        const { message } = reply.body as { message?: string };
        const retry = reply.headers?.["Retry-After"];
        return toolError(`${message ?? `The dry run answered ${reply.status}.`}${retry ? ` Retry after ${retry} s.` : ""}`);
      }),
  );
}

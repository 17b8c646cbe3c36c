// The four market tools, protocol-neutral: each one's name, title, description, argument and result
// schemas (from the contract) and what it does. The MCP server registers them as its tools; the A2A
// agent calls them as its skills (call.ts). tools/list, /mcp/tools.json and the server card read
// these through the live MCP server, so there is no second copy of any schema.
import * as z from "zod";
import type { operations } from "../../generated/openapi.js";
import { HttpError } from "../contract/errors.js";
import { isStorageError, logUnexpected } from "../contract/unexpected-errors.js";
import { MCP_TOOLS } from "../documents/agent-facts.js";
import { searchDocument } from "../documents/discovery.js";
import { buyPlaybook, sellPlaybook } from "../documents/playbooks.js";
import { dryRunListing } from "../listing/dry-run.js";
import type { ListingRequest, ValidationReport } from "../listing/listing-checks.js";
import type { MarketFacts } from "../market/facts.js";
import { catalogState, searchPage } from "../queries/catalog.js";
import { isBusy } from "../workers/work-gate.js";
import type { MarketToolServices, ToolContext } from "./context.js";
import { contractSchema, queryArguments } from "./contract-schemas.js";
import { catalogText, playbookText, reportText, type PlaybookLike } from "./texts.js";

export type MarketToolName = (typeof MCP_TOOLS)[number]["name"];

/** A tool's answer: its structured result and the text that says it, or a refusal's text. */
export type ToolAnswer =
  { isError: false; text: string; structuredContent: Record<string, unknown> } | { isError: true; text: string };

/** What a tool promises its caller (the MCP tool annotations). */
export interface ToolHints {
  readOnlyHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface MarketTool<Input extends z.ZodType = z.ZodType> {
  name: MarketToolName;
  title: string;
  description(market: MarketFacts): string;
  /** The arguments; `run` receives them checked against this schema (defaults applied). */
  inputSchema(): Input;
  /** What the structured result holds. */
  outputSchema(): z.ZodType;
  hints: ToolHints;
  run(context: ToolContext, args: z.output<Input>): Promise<ToolAnswer> | ToolAnswer;
}

const tool = <Input extends z.ZodType>(definition: MarketTool<Input>): MarketTool =>
  definition as unknown as MarketTool;

/** The one-line purpose every agent document also states; the tool description goes on from there. */
function purposeOf(name: MarketToolName): string {
  return MCP_TOOLS.find((entry) => entry.name === name)!.description;
}

const answer = (text: string, structuredContent: object): ToolAnswer => ({
  isError: false,
  text,
  structuredContent: structuredContent as Record<string, unknown>,
});

export const refusal = (text: string): ToolAnswer => ({ isError: true, text });

/**
 * A 4xx of the shared code paths (a bad cursor, for instance) is the caller's mistake: a tool error
 * naming it, as is a refusal of the bound on uncached work. Anything else is logged and reported
 * without internals.
 */
async function answering(
  services: MarketToolServices,
  name: MarketToolName,
  run: () => Promise<ToolAnswer>,
): Promise<ToolAnswer> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof HttpError && (error.status < 500 || isBusy(error))) return refusal(error.message);
    logUnexpected(services.logger, error, { tool: name }, "MCP tool failed");
    return refusal(
      isStorageError(error)
        ? `${name} failed: the catalog database did not answer. Try again shortly.`
        : `${name} failed on the server; the failure has been logged. Try again later.`,
    );
  }
}

const READ_ONLY: ToolHints = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
const NO_ARGUMENTS = z.strictObject({});

/** list_market mirrors GET /search: `query` optional (omitted, it lists everything), the same seed filters. */
const SEARCH_OPERATION = "searchCatalog";
/** What the HTTP handler of that operation receives, and so what the tool's arguments must be. */
type SearchArguments = NonNullable<operations[typeof SEARCH_OPERATION]["parameters"]["query"]>;

/**
 * The arguments of list_market: the query parameters of GET /search in the contract, converted
 * once. The cast only names the type: a test holds the properties equal to those parameters.
 */
const listMarketInput = (): z.ZodType<SearchArguments> =>
  queryArguments(SEARCH_OPERATION) as z.ZodType<SearchArguments>;

/** One page of the catalog, under the request's turn of the bound on uncached work. */
function listMarket({ services, turn }: ToolContext, args: SearchArguments): Promise<ToolAnswer> {
  return answering(services, "list_market", () =>
    turn(async () => {
      const document = searchDocument(
        services,
        await searchPage(services, await catalogState(services), args, "search"),
      );
      return answer(catalogText(document), document);
    }),
  );
}

const listMarketTool = tool({
  name: "list_market",
  title: "List the market",
  description: () =>
    `${purposeOf("list_market")} The same search, filters and paging as GET /search, with the same arguments as its query parameters. ` +
    "offset is ignored when cursor is given; a cursor continues only the search it came from. " +
    "health=healthy (advised before buying) keeps only listings whose endpoint answered the marketplace's last re-probes with the listed terms; " +
    "the default, any, shows every listing with its metadata.health (unhealthy: down; drifted: its live terms changed; unknown: not re-probed yet). " +
    "Each item names its resource, method, price and accepts[0] (what to pay whom): buy from the seller directly.",
  inputSchema: listMarketInput,
  outputSchema: () => contractSchema("DiscoveryDocument"),
  hints: READ_ONLY,
  run: listMarket,
});

const playbookAnswer = (playbook: PlaybookLike): ToolAnswer => answer(playbookText(playbook), playbook);

const howToSellTool = tool({
  name: "how_to_sell",
  title: "How to sell",
  description: (market) =>
    `${purposeOf("how_to_sell")} Steps with URLs, the ${market.feeUsdc} USDC listing fee (x402, ${market.network}), the body schema and an example; ` +
    "then how the owner (sellerPayTo) updates, delists or claims a listing with an EIP-712 signature, and how anyone refreshes it.",
  inputSchema: () => NO_ARGUMENTS,
  outputSchema: () => contractSchema("SellPlaybook"),
  hints: READ_ONLY,
  run: ({ services }) => playbookAnswer(sellPlaybook(services.market)),
});

const howToBuyTool = tool({
  name: "how_to_buy",
  title: "How to buy",
  description: () =>
    `${purposeOf("how_to_buy")} Find a listing, call its resource, pay the seller's own x402 challenge; the marketplace holds no funds.`,
  inputSchema: () => NO_ARGUMENTS,
  outputSchema: () => contractSchema("BuyPlaybook"),
  hints: READ_ONLY,
  run: ({ services }) => playbookAnswer(buyPlaybook(services.market)),
});

/** The dry run of POST /listings/validate, probing the seller under the caller's probe limit. */
function validateListing({ services, clientIp }: ToolContext, args: unknown): Promise<ToolAnswer> {
  return answering(services, "validate_listing", async () => {
    const reply = await dryRunListing(args as ListingRequest, clientIp, services.probe);
    if (reply.status === 200 || reply.status === 422) {
      const report = reply.body as ValidationReport;
      return answer(reportText(report), report);
    }
    const { message } = reply.body as { message?: string };
    const retry = reply.headers?.["Retry-After"];
    return refusal(`${message ?? `The dry run answered ${reply.status}.`}${retry ? ` Retry after ${retry} s.` : ""}`);
  });
}

const validateListingTool = tool({
  name: "validate_listing",
  title: "Validate a listing (dry run)",
  description: () =>
    `${purposeOf("validate_listing")} The arguments are the body of POST /listings. The answer is the per-check report of POST /listings/validate, ` +
    "including a probe of the seller's endpoint (it must answer 402 with a matching x402 challenge).",
  inputSchema: () => contractSchema("ListingRequest"),
  outputSchema: () => contractSchema("ValidationReport"),
  hints: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  run: validateListing,
});

/** The tools in the order tools/list gives them. */
export const MARKET_TOOLS: readonly MarketTool[] = [listMarketTool, howToSellTool, howToBuyTool, validateListingTool];

export function marketTool(name: MarketToolName): MarketTool {
  return MARKET_TOOLS.find((entry) => entry.name === name)!;
}

// The mcp area (spec/mcp.tsp): the MCP endpoint (src/mcp/) and the documents that describe it.
import type { Handler } from "../services.js";
import { mcpDiscovery, mcpServerCard, mcpServers, mcpToolCatalog } from "../mcp/documents.js";
import { answerMcpPost } from "../mcp/http-transport.js";
import type { AreaHandlers } from "./area-handlers.js";

/** GET /mcp: the discovery JSON. The server is stateless, so an SSE stream request gets 405 (MCP transport spec). */
const getMcpDiscovery: Handler<"getMcpDiscovery"> = async (input, services) => {
  if (input.headers.accept?.includes("text/event-stream")) {
    return {
      status: 405,
      headers: { Allow: "GET, HEAD, POST" },
      body: {
        error: "method_not_allowed",
        message:
          "This MCP server is stateless and offers no SSE stream: POST JSON-RPC messages to /mcp; GET /mcp without text/event-stream describes it.",
      },
    };
  }
  return { status: 200, body: await mcpDiscovery(services) };
};

/** POST /mcp: MCP over Streamable HTTP, through the SDK's transport. */
const postMcp: Handler<"postMcp"> = (input, services) => answerMcpPost(input, services);

/** `/mcp.json`, `/.well-known/mcp.json`: the servers document. */
const getMcpServers: Handler<"getMcpServers"> = (_input, { market }) => ({ status: 200, body: mcpServers(market) });

/** `/mcp/tools.json`, `/tools.json`, `/skills.json`: the live tools/list. */
const getMcpTools: Handler<"getMcpTools"> = async (_input, services) => ({
  status: 200,
  body: await mcpToolCatalog(services),
});

/** The server card routes. */
const getMcpServerCard: Handler<"getMcpServerCard"> = async (_input, services) => ({
  status: 200,
  body: await mcpServerCard(services),
});

export const mcpHandlers: AreaHandlers<"mcp"> = {
  getMcpDiscovery,
  postMcp,
  getMcpServers,
  getMcpTools,
  getMcpServerCard,
};

import type { Handler } from "../services.js";
import { mcpDiscovery, mcpServerCard, mcpServers, mcpToolCatalog } from "../mcp/documents.js";
import { answerMcpPost } from "../mcp/http-transport.js";

/** GET /mcp: the discovery JSON. The server is stateless, so an SSE stream request gets 405 (MCP transport spec). */
export const getMcpDiscovery: Handler<"getMcpDiscovery"> = async (input, services) => {
  if (input.headers.accept?.includes("text/event-stream")) {
    return {
      status: 405,
      headers: { Allow: "GET, HEAD, POST" },
      body: {
        error: "method_not_allowed",
        message: "This MCP server is stateless and offers no SSE stream: POST JSON-RPC messages to /mcp; GET /mcp without text/event-stream describes it.",
      },
    };
  }
  return { status: 200, body: await mcpDiscovery(services) };
};

/** POST /mcp: MCP over Streamable HTTP, through the SDK's transport. */
export const postMcp: Handler<"postMcp"> = (input, services) => answerMcpPost(input, services);

/** `/mcp.json`, `/.well-known/mcp.json`: the servers document. */
export const getMcpServers: Handler<"getMcpServers"> = (_input, { market }) => ({ status: 200, body: mcpServers(market) });

/** `/mcp/tools.json`, `/tools.json`, `/skills.json`: the live tools/list. */
export const getMcpTools: Handler<"getMcpTools"> = async (_input, services) => ({ status: 200, body: await mcpToolCatalog(services) });

/** The server card routes. */
export const getMcpServerCard: Handler<"getMcpServerCard"> = async (_input, services) => ({ status: 200, body: await mcpServerCard(services) });

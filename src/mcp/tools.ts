// The market tools (src/market-tools/) registered as the MCP server's tools. tools/list,
// /mcp/tools.json and the server card all read these registrations through the live server.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolContext } from "../market-tools/context.js";
import { MARKET_TOOLS, type ToolAnswer } from "../market-tools/tools.js";

function callToolResult(answer: ToolAnswer): CallToolResult {
  const content = [{ type: "text" as const, text: answer.text }];
  return answer.isError ? { content, isError: true } : { content, structuredContent: answer.structuredContent };
}

export function registerMarketTools(server: McpServer, context: ToolContext): void {
  const { market } = context.services;
  for (const tool of MARKET_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description(market),
        inputSchema: tool.inputSchema(),
        outputSchema: tool.outputSchema(),
        annotations: tool.hints,
      },
      async (args: unknown) => callToolResult(await tool.run(context, args)),
    );
  }
}

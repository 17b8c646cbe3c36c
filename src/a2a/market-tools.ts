// The A2A skills are the MCP tools: each message/send calls the tool through the MCP server itself
// (an in-process client), so the arguments are checked and the answer built by the same code.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CONTRACT_VERSION } from "../constants.js";
import { MCP_TOOL_NAMES } from "../documents/agent-facts.js";
import { createMarketMcpServer, MCP_SERVER_NAME } from "../mcp/server.js";
import type { ToolContext } from "../mcp/tools.js";

export type SkillName = (typeof MCP_TOOL_NAMES)[number];

export const SKILL_NAMES: readonly SkillName[] = MCP_TOOL_NAMES;

/** Calls one MCP tool on a fresh server, as a tools/call over POST /mcp would. */
export async function callMarketTool(context: ToolContext, name: SkillName, args: Record<string, unknown>): Promise<CallToolResult> {
  const server = createMarketMcpServer(context);
  const client = new Client({ name: `${MCP_SERVER_NAME}-a2a`, version: CONTRACT_VERSION });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  try {
    await client.connect(clientSide);
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  } finally {
    await client.close();
    await server.close();
  }
}

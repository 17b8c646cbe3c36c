// A market tool called directly (the A2A skills), with the checks the MCP server makes around a
// tools/call: the arguments against the tool's schema, the structured result against its result
// schema, and anything thrown as a refusal. The refusal texts are the MCP SDK's own (1.x McpServer),
// so a skill and its tool answer the same words; test/handlers/a2a.test.ts holds them equal.
import type * as z from "zod";
import type { ToolContext } from "./context.js";
import { marketTool, refusal, type MarketToolName, type ToolAnswer } from "./tools.js";

/** The SDK's code for invalid params, which its McpError puts before the message. */
const INVALID_PARAMS = -32602;

/** An issue's path as the SDK writes it: `a.b[0]`. */
function dotPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, segment, index) => {
    if (index === 0) return String(segment);
    return typeof segment === "number" ? `${text}[${segment}]` : `${text}.${String(segment)}`;
  }, "");
}

function problemsOf(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.message} at ${dotPath(issue.path)}` : issue.message))
    .join("\n");
}

const invalidParams = (message: string): ToolAnswer => refusal(`MCP error ${INVALID_PARAMS}: ${message}`);

export async function callMarketTool(
  context: ToolContext,
  name: MarketToolName,
  args: Record<string, unknown>,
): Promise<ToolAnswer> {
  const tool = marketTool(name);
  try {
    const input = await tool.inputSchema().safeParseAsync(args);
    if (!input.success)
      return invalidParams(`Input validation error: Invalid arguments for tool ${name}: ${problemsOf(input.error)}`);
    const answer = await tool.run(context, input.data);
    if (answer.isError) return answer;
    const output = await tool.outputSchema().safeParseAsync(answer.structuredContent);
    if (!output.success)
      return invalidParams(
        `Output validation error: Invalid structured content for tool ${name}: ${problemsOf(output.error)}`,
      );
    return answer;
  } catch (error) {
    return refusal(error instanceof Error ? error.message : String(error));
  }
}

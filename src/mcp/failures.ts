import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { isStorageError, logUnexpected } from "../contract/unexpected-errors.js";
import { isBusy } from "../workers/work-gate.js";
import type { McpServices } from "./context.js";

/**
 * Runs a resource read, prompt or completion: an McpError (the caller's mistake) passes as it is;
 * anything else is logged and answered -32603 without its text, which may name tables or hosts.
 */
export async function guarded<T>(services: McpServices, what: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof McpError) throw error;
    if (isBusy(error)) throw new McpError(ErrorCode.InternalError, error.message);
    logUnexpected(services.logger, error, { mcp: what }, "MCP request failed");
    throw new McpError(
      ErrorCode.InternalError,
      isStorageError(error)
        ? `${what} failed: the catalog database did not answer. Try again shortly.`
        : `${what} failed on the server; the failure has been logged. Try again later.`,
    );
  }
}

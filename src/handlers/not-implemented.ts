import type { CanonicalOperationId } from "../../generated/operations.js";
import type { Handler } from "../http/handler-types.js";

/** The answer of an operation whose capability is not built yet: 501 naming it, never made-up content. */
export function notImplemented<O extends CanonicalOperationId>(operation: O, capability: string): Handler<O> {
  return () => {
    const reply = {
      status: 501,
      body: {
        error: "not_implemented",
        message: `${operation} is part of ${capability}, which is not built yet.`,
        operation,
      },
    };
    return reply as unknown as ReturnType<Handler<O>>;
  };
}

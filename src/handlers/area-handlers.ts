import { areas, type Area, type AreaOperationId } from "../../generated/operations.js";
import type { ContractHandler } from "../contract/typed-handlers.js";
import type { AreaContexts, Handler } from "../services.js";

/**
 * The handlers of one area of the contract (`areas` in generated/operations.ts): exactly that
 * area's canonical operations, each typed by the contract. A missing operation, or one of
 * another area, does not compile.
 */
export type AreaHandlers<A extends Area> = { [O in AreaOperationId<A>]: Handler<O> };

/** An area's handlers as the router calls them: each is given its own area's context. */
export function forArea<A extends Area>(
  area: A,
  handlers: AreaHandlers<A>,
): { [O in AreaOperationId<A>]: ContractHandler<O, AreaContexts> } {
  const bound: Record<string, ContractHandler<never, AreaContexts>> = {};
  for (const operationId of areas[area]) {
    const handler = handlers[operationId as AreaOperationId<A>] as unknown as (
      input: unknown,
      context: AreaContexts[A],
    ) => unknown;
    bound[operationId] = ((input: unknown, contexts: AreaContexts) => handler(input, contexts[area])) as never;
  }
  return bound as unknown as { [O in AreaOperationId<A>]: ContractHandler<O, AreaContexts> };
}

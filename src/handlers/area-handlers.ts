import type { Area, AreaOperationId } from "../../generated/operations.js";
import type { Handler } from "../services.js";

/**
 * The handlers of one area of the contract (`areas` in generated/operations.ts): exactly that
 * area's canonical operations, each typed by the contract. A missing operation, or one of
 * another area, does not compile.
 */
export type AreaHandlers<A extends Area> = { [O in AreaOperationId<A>]: Handler<O> };

/**
 * generated/operations.ts: the canonical operations, their areas, and the route table read from the
 * compiled contract (method and path as openapi.json declares them, in alias-table order).
 */
import type { AliasRoute } from "./alias-table.js";

interface CompiledContract {
  info: { version: string };
  paths: Record<string, Record<string, { operationId?: string }>>;
}

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

export interface CompiledRoute {
  method: string;
  path: string;
  operationId: string;
  canonical: string;
  area: string;
}

/** Every operation of the compiled contract, in alias-table order; refuses a contract the table does not account for. */
export function compiledRoutes(routes: AliasRoute[], contract: CompiledContract): CompiledRoute[] {
  const declared = Object.entries(contract.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operationId: operation.operationId })),
  );
  const table = routes.map((route) => {
    const found = declared.filter(
      (operation) => operation.path === route.path && operation.operationId === route.operationId,
    );
    if (found.length !== 1) {
      throw new Error(
        `the compiled contract declares ${route.operationId} at ${route.path} ${found.length} times, not once`,
      );
    }
    return {
      method: found[0]!.method,
      path: route.path,
      operationId: route.operationId,
      canonical: route.canonical,
      area: route.area,
    };
  });
  if (declared.length !== table.length) {
    const known = new Set(routes.map((route) => route.operationId));
    const extra = declared.filter((operation) => !known.has(operation.operationId ?? ""));
    throw new Error(
      `the compiled contract declares operations the alias table does not: ${extra.map((o) => `${o.method} ${o.path}`).join(", ")}`,
    );
  }
  return table;
}

export function renderOperationsModule(routes: AliasRoute[], contract: CompiledContract, header: string): string {
  const canonical = [...new Set(routes.map((route) => route.canonical))];
  const areas = [...new Set(routes.map((route) => route.area))];
  const table = compiledRoutes(routes, contract);
  const areaLines = areas.map((area) => {
    const operations = canonical.filter((name) =>
      routes.some((route) => route.area === area && route.canonical === name),
    );
    return `  ${area}: [${operations.map((name) => JSON.stringify(name)).join(", ")}],`;
  });
  const fields = (route: CompiledRoute) =>
    (["method", "path", "operationId", "canonical", "area"] as const)
      .map((key) => `${key}: ${JSON.stringify(route[key])}`)
      .join(", ");
  return [
    `// ${header}`,
    "",
    "/** Every canonical operation: one handler each. */",
    `export const canonicalOperationIds = ${JSON.stringify(canonical, null, 2)} as const;`,
    "",
    "export type CanonicalOperationId = (typeof canonicalOperationIds)[number];",
    "",
    "/** Every routed operationId -> the canonical operation whose handler answers it. */",
    "export const canonicalOf = {",
    ...routes.map((route) => `  ${route.operationId}: ${JSON.stringify(route.canonical)},`),
    "} as const satisfies Record<string, CanonicalOperationId>;",
    "",
    "export type RoutedOperationId = keyof typeof canonicalOf;",
    "",
    "/** The canonical operations of each area: the members of `interface <Area>` in spec/<area>.tsp. */",
    "export const areas = {",
    ...areaLines,
    "} as const satisfies Record<string, readonly CanonicalOperationId[]>;",
    "",
    "export type Area = keyof typeof areas;",
    "",
    "export type AreaOperationId<A extends Area> = (typeof areas)[A][number];",
    "",
    "/** Every route of the compiled contract (generated/openapi.json), in alias-table order. */",
    "export const routeTable = [",
    ...table.map((route) => `  { ${fields(route)} },`),
    "] as const satisfies ReadonlyArray<{",
    '  method: "GET" | "PUT" | "POST" | "DELETE" | "OPTIONS" | "HEAD" | "PATCH" | "TRACE";',
    "  path: string;",
    "  operationId: RoutedOperationId;",
    "  canonical: CanonicalOperationId;",
    "  area: Area;",
    "}>;",
    "",
    "/** The compiled contract's `info.version` (spec/main.tsp); package.json's version must equal it. */",
    `export const CONTRACT_VERSION = ${JSON.stringify(contract.info.version)};`,
    "",
  ].join("\n");
}

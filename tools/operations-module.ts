/**
 * generated/operations.ts: the canonical operations and the operationId of every routed path.
 */
import type { AliasRoute } from "./alias-table.js";

export function renderOperationsModule(routes: AliasRoute[], header: string): string {
  const canonical = [...new Set(routes.map((route) => route.canonical))];
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
  ].join("\n");
}

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse, SyntaxKind, type Node, type TypeSpecScriptNode } from "@typespec/compiler/ast";

export interface AliasRoute {
  /** The area: its canonical operations are the members of `interface <Area>` in spec/<area>.tsp. */
  area: string;
  /** The canonical operation, a member of the area's interface. */
  canonical: string;
  /** The operationId of this path: the canonical name for the first path. */
  operationId: string;
  path: string;
}

/** Literal segments, and `{name}` path parameters as whole segments (`/listings/{id}`). */
const ROUTE_PATTERN = /^(?:\/(?:[A-Za-z0-9._~-]*|\{[a-z][A-Za-z0-9]*\}))+$/;
const NAME_PATTERN = /^[a-z][A-Za-z0-9]*$/;

/** `/.well-known/a2a-agent.json` -> `wellKnownA2aAgentJson`. */
export function pathToIdentifier(path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words
    .map((word, index) => (index === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase()))
    .join("");
}

/** `catalog` -> `Catalog`: the interface that holds an area's canonical operations. */
export function interfaceOf(area: string): string {
  return area[0]!.toUpperCase() + area.slice(1);
}

/** The areas spec/ declares: each `spec/<area>.tsp` that holds `interface <Area>`. */
export function readSpecAreas(root: string): string[] {
  return readdirSync(join(root, "spec"))
    .filter((file) => file.endsWith(".tsp"))
    .map((file) => file.slice(0, -".tsp".length))
    .filter((area) => NAME_PATTERN.test(area))
    .filter((area) =>
      new RegExp(`^interface ${interfaceOf(area)}\\b`, "m").test(
        readFileSync(join(root, "spec", `${area}.tsp`), "utf8"),
      ),
    );
}

/** spec/aliases.json: area -> canonical operation -> paths; keys starting with `$` are comments. */
export type AliasTable = Record<string, unknown>;

export function readAliasTable(root: string): AliasTable {
  return JSON.parse(readFileSync(join(root, "spec/aliases.json"), "utf8")) as AliasTable;
}

/** The areas the table names, in table order. */
export function tableAreas(table: AliasTable): string[] {
  return Object.keys(table).filter((key) => !key.startsWith("$"));
}

/**
 * Expands the alias table into one route per path, in table order, refusing malformed entries.
 * `knownAreas` are the areas spec/ declares an interface for.
 */
export function expandAliasTable(table: AliasTable, knownAreas: readonly string[]): AliasRoute[] {
  const routes: AliasRoute[] = [];
  const operationIds = new Set<string>();
  const areaOf = new Map<string, string>();
  for (const area of tableAreas(table)) {
    const operations = table[area];
    if (!NAME_PATTERN.test(area))
      throw new Error(`aliases.json: '${area}' is not an area name (lower camel case, e.g. "catalog")`);
    if (!knownAreas.includes(area)) {
      throw new Error(
        `aliases.json: unknown area '${area}': no interface ${interfaceOf(area)} in spec/${area}.tsp (areas: ${knownAreas.join(", ")})`,
      );
    }
    if (typeof operations !== "object" || operations === null || Array.isArray(operations)) {
      throw new Error(`aliases.json: area '${area}' needs an object of operation -> paths`);
    }
    for (const [canonical, paths] of Object.entries(operations)) {
      if (!NAME_PATTERN.test(canonical))
        throw new Error(`aliases.json: '${area}.${canonical}' is not an operation name`);
      const other = areaOf.get(canonical);
      if (other) throw new Error(`aliases.json: operation '${canonical}' is in two areas, '${other}' and '${area}'`);
      areaOf.set(canonical, area);
      if (!Array.isArray(paths) || paths.length === 0)
        throw new Error(`aliases.json: '${area}.${canonical}' needs a non-empty array of paths`);
      paths.forEach((path: unknown, index) => {
        if (typeof path !== "string" || !ROUTE_PATTERN.test(path)) {
          throw new Error(`aliases.json: '${area}.${canonical}' has a malformed path ${JSON.stringify(path)}`);
        }
        const operationId = index === 0 ? canonical : `${canonical}__${pathToIdentifier(path)}`;
        if (operationIds.has(operationId)) throw new Error(`aliases.json: operationId '${operationId}' appears twice`);
        operationIds.add(operationId);
        routes.push({ area, canonical, operationId, path });
      });
    }
  }
  return routes;
}

/**
 * `<Interface>.<operation>` -> the `@summary` its declaration in spec/<area>.tsp carries, read from
 * the parsed source (the routed operations are generated before the spec is compiled).
 */
export function readCanonicalSummaries(root: string, areas: readonly string[]): Map<string, string> {
  const summaries = new Map<string, string>();
  const visit = (node: Node, interfaceName: string | null): void => {
    if (node.kind === SyntaxKind.OperationStatement && interfaceName) {
      for (const decorator of node.decorators) {
        const [text] = decorator.arguments;
        if (
          decorator.target.kind === SyntaxKind.Identifier &&
          decorator.target.sv === "summary" &&
          text?.kind === SyntaxKind.StringLiteral
        ) {
          summaries.set(`${interfaceName}.${node.id.sv}`, text.value);
        }
      }
      return;
    }
    if (node.kind === SyntaxKind.InterfaceStatement) {
      for (const operation of node.operations) visit(operation, node.id.sv);
      return;
    }
    if (node.kind === SyntaxKind.NamespaceStatement && Array.isArray(node.statements))
      for (const statement of node.statements) visit(statement, null);
  };
  for (const area of areas) {
    const script: TypeSpecScriptNode = parse(readFileSync(join(root, "spec", `${area}.tsp`), "utf8"));
    for (const statement of script.statements) visit(statement, null);
  }
  return summaries;
}

const HEADER =
  "Generated by tools/generate.ts from spec/aliases.json. Do not edit: change the table and run `npm run generate`.";

/**
 * One routed operation per path. Each gets an explicit `security: []`: no route of this service
 * takes credentials (a paid one says how it is paid in `x-payment-info`), and discovery crawlers
 * read an operation without `security` as one whose access is unknown. A further path of a
 * canonical operation is summarised as its alias, from `summaries` (readCanonicalSummaries).
 */
export function renderRoutesTsp(routes: AliasRoute[], summaries: ReadonlyMap<string, string> = new Map()): string {
  const areas = [...new Set(routes.map((route) => route.area))];
  const firstPath = new Map<string, string>();
  for (const route of routes) if (!firstPath.has(route.canonical)) firstPath.set(route.canonical, route.path);
  const render = (route: AliasRoute): string => {
    const canonical = `${interfaceOf(route.area)}.${route.canonical}`;
    const summary = summaries.get(canonical);
    const first = firstPath.get(route.canonical)!;
    const aliasSummary =
      summary !== undefined && first !== route.path
        ? ` @summary(${JSON.stringify(`${summary} (alias of ${first})`)})`
        : "";
    return `@extension("security", #[])${aliasSummary}\n@route(${JSON.stringify(route.path)}) op ${route.operationId} is ${canonical};`;
  };
  const sections = areas.flatMap((area) => [
    "",
    `// ${area}`,
    ...routes.filter((route) => route.area === area).map(render),
  ]);
  return [
    `// ${HEADER}`,
    `import "@typespec/http";`,
    `import "@typespec/openapi";`,
    ...areas.map((area) => `import "../spec/${area}.tsp";`),
    "",
    "using Http;",
    "using OpenAPI;",
    "using Canonical;",
    "",
    "namespace Marketplace;",
    ...sections,
    "",
  ].join("\n");
}

import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { routeTable } from "../../generated/operations.js";

const ROOT = join(import.meta.dirname, "../..");
/** The one place that joins the origin and a path of the contract. */
const LINK_TABLE = "src/market/links.ts";
const PATHS = new Set<string>(routeTable.map((route) => route.path));

/**
 * Hand-built URLs in source text: an interpolation followed by a path of the contract
 * (`${base}/listings`), a path concatenated with `+`, `new URL("/path", ...)`, or the origin
 * (`baseUrl`) joined to anything.
 */
export function handBuiltPaths(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/\}(\/[A-Za-z0-9._~\-/]*)(?=[`?#$\s"')]|$)/g)) {
    const path = match[1]!;
    // `/listings/{id}/status` is a path template handed to the link table, not an interpolation.
    const template = /(?<!\$)\{[A-Za-z]+$/.test(source.slice(Math.max(0, match.index - 40), match.index));
    if (!template && PATHS.has(path) && path !== "/") found.push(`\${...}${path}`);
  }
  for (const [match] of source.matchAll(/\+\s*["'`]\/[A-Za-z0-9._~\-/]*["'`]|["'`]\/[A-Za-z0-9._~\-/]*["'`]\s*\+/g))
    found.push(match);
  for (const [match] of source.matchAll(/new URL\(\s*["'`]\//g)) found.push(match);
  for (const [match] of source.matchAll(/\bbaseUrl\}|\bbaseUrl\s*\+|\+\s*[\w.]*\bbaseUrl\b/g)) found.push(match);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

describe("URLs of the service", () => {
  it("are built only by the link table: no path of the contract is joined by hand anywhere else in src/", () => {
    const offenders = sourceFiles("src")
      .filter((file) => file !== LINK_TABLE)
      .flatMap((file) => handBuiltPaths(readFileSync(join(ROOT, file), "utf8")).map((found) => `${file}: ${found}`));
    expect(offenders).toEqual([]);
  });

  it("finds each kind of hand-built URL the rule forbids, and leaves file paths and prose alone", () => {
    expect(handBuiltPaths("const a = `${market.baseUrl}/listings`;")).toHaveLength(2);
    expect(handBuiltPaths("const b = `${origin}/feed.json?since=1`;")).toEqual(["${...}/feed.json"]);
    expect(handBuiltPaths('const c = origin + "/bazaar.json";')).toHaveLength(1);
    expect(handBuiltPaths('const d = new URL("/mcp", base);')).toHaveLength(1);
    expect(handBuiltPaths("const e = `${kind}/migrations`; const f = `${at}/${key}`;")).toEqual([]);
    expect(handBuiltPaths('const g = "Without payment, POST /listings answers 402";')).toEqual([]);
    expect(handBuiltPaths('const h = linkWithParams(market, "/listings/{id}/status", { id });')).toEqual([]);
    expect(handBuiltPaths("const i = `${origin}/listings/${id}/status`;")).toEqual(["${...}/status"]);
  });
});

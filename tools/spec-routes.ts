/**
 * `npx tsx tools/spec-routes.ts [--check] [path/to/marketplace-service-spec.md]`: extracts every
 * method and path of the spec's endpoint tables into test/contract/spec-routes.json, which the
 * contract test checks the compiled contract against. The spec lives outside this repository
 * (default ../shared/spec/marketplace-service-spec.md); with --check the file is compared, not written.
 */
import { readFile, writeFile } from "node:fs/promises";

const args = process.argv.slice(2);
const check = args.includes("--check");
const specPath = args.find((a) => !a.startsWith("-")) ?? "../shared/spec/marketplace-service-spec.md";
const outPath = "test/contract/spec-routes.json";

const markdown = await readFile(specPath, "utf8");
const start = markdown.indexOf("\n## Endpoints");
const end = markdown.indexOf("\n## ", start + 1);
if (start < 0) throw new Error(`${specPath} has no "## Endpoints" section`);

// \u0060 is the backtick, spelled out so tools that do not parse regex literals see no open template string.
const CODE_SPAN = /\u0060([^\u0060]+)\u0060/g;
const routes = new Map<string, { method: string; path: string }>();
let header: string[] | null = null;
for (const line of markdown.slice(start, end < 0 ? undefined : end).split("\n")) {
  if (!line.startsWith("|")) {
    header = null;
    continue;
  }
  const cells = line
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((cell) => cell.trim());
  if (!header) {
    header = cells;
    continue;
  }
  if (/^-+$/.test(cells[0]!)) continue;
  // "Method | Path | ..." tables name the method; "Path(s) | ..." tables sit under "(unpaid, GET)" headings.
  const [method, pathCell] =
    header[0] === "Method" ? [cells[0]!, cells[1]!] : /^Paths?$/.test(header[0]!) ? ["GET", cells[0]!] : [null, ""];
  if (!method) continue; // the query parameter table
  for (const [, path] of pathCell.matchAll(CODE_SPAN)) routes.set(`${method} ${path}`, { method, path: path! });
}

const sorted = [...routes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, route]) => route);
const text = `${JSON.stringify({ $comment: "Every method and path of the endpoint tables of shared/spec/marketplace-service-spec.md (the user requirement).", routes: sorted }, null, 1)}\n`;
if (check) {
  const current = await readFile(outPath, "utf8");
  const same = JSON.stringify(JSON.parse(current).routes) === JSON.stringify(sorted);
  console.log(
    same
      ? `${outPath} matches the spec (${sorted.length} routes)`
      : `${outPath} differs from the spec: run npx tsx tools/spec-routes.ts`,
  );
  process.exit(same ? 0 : 1);
}
await writeFile(outPath, text);
console.log(`wrote ${outPath} (${sorted.length} routes)`);

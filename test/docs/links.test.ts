import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

/**
 * Written on another branch at the same time as the README moved into docs/; the README already
 * links it. Remove each entry once its file is merged.
 */
const MERGED_ELSEWHERE = new Set<string>();

/** Lines outside fenced code blocks, inline code spans blanked (a link inside code is no link). */
function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of text.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      continue;
    }
    lines.push(fence === null ? line.replace(/(`+)[^`]*?\1/g, "code") : "");
  }
  return lines;
}

/** The anchor GitHub gives a heading (github-slugger): lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a Markdown file offers, repeated headings numbered as GitHub numbers them. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of text.split("\n")) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) fence = !fence;
    const heading = fence ? undefined : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name));
  return ["README.md", ...docs.sort()];
}

/** Each relative link of a file that does not resolve, as `file:line: target (why)`. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  proseLines(readFileSync(join(ROOT, file), "utf8")).forEach((line, index) => {
    for (const match of line.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path = "", anchor] = target.split("#");
      const resolved = path === "" ? file : relative(ROOT, join(ROOT, dirname(file), decodeURI(path)));
      const where = `${file}:${index + 1}: ${target}`;
      if (MERGED_ELSEWHERE.has(resolved)) continue;
      if (!existsSync(join(ROOT, resolved))) {
        broken.push(`${where} (no file ${resolved})`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!resolved.endsWith(".md") || statSync(join(ROOT, resolved)).isDirectory()) {
        broken.push(`${where} (an anchor into a file that is not Markdown)`);
      } else if (!anchorsOf(readFileSync(join(ROOT, resolved), "utf8")).has(decodeURIComponent(anchor))) {
        broken.push(`${where} (no heading #${anchor} in ${resolved})`);
      }
    }
  });
  return broken;
}

describe("README.md and docs/", () => {
  it("give headings the anchors GitHub gives them", () => {
    expect(headingSlug("Indexing other catalogs (`INDEX_SOURCES`)")).toBe("indexing-other-catalogs-index_sources");
    expect(headingSlug("Search (`npm run bench:search`)")).toBe("search-npm-run-benchsearch");
    expect(headingSlug("Trust: health, owners, usage")).toBe("trust-health-owners-usage");
    expect(headingSlug("A paid listing against a plain `npm start`, step by step")).toBe(
      "a-paid-listing-against-a-plain-npm-start-step-by-step",
    );
    expect([...anchorsOf("# A\n\n## A\n\n```\n# not a heading\n```\n")]).toEqual(["a", "a-1"]);
  });

  it("link only to files that exist and headings those files have", () => {
    const files = markdownFiles();
    expect(files.length).toBeGreaterThan(1);
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });
});

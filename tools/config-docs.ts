/**
 * .env.example and docs/configuration.md, rendered from the declarations in src/config-vars-*.ts
 * (issue 44). tools/generate.ts writes them; `npm run check:generated` fails when they drift.
 */
import { AREAS, boundsOf, SERVICE_AREAS, type Area, type Variable, VARIABLES } from "../src/config-schema.js";

const SOURCE = "src/config-vars-*.ts (through src/config-schema.ts)";

function byArea(variables: readonly Variable[]): [Area, Variable[]][] {
  return (Object.keys(AREAS) as Area[])
    .map((area): [Area, Variable[]] => [area, variables.filter((variable) => variable.area === area)])
    .filter(([, list]) => list.length > 0);
}

/** The documented default, as Markdown. */
function defaultOf(variable: Variable): string {
  if (variable.defaultText) return variable.defaultText;
  if (variable.default === null) return "none";
  return `\`${String(variable.default)}\``;
}

/** Markdown to a plain comment: links keep their text and name their file under docs/, emphasis goes. */
function plain(markdown: string): string {
  return markdown.replace(/\[([^\]]+)\]\(([a-z-]+\.md)#[^)]+\)/g, "$1 in docs/$2").replace(/\*\*/g, "");
}

function wrap(text: string, width: number, prefix: string): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && prefix.length + line.length + 1 + word.length > width) {
      lines.push(prefix + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(prefix + line);
  return lines;
}

/** A value a POSIX shell reads back unchanged (`set -a; . ./.env`). */
function shellValue(value: string): string {
  return /^[\w.:/@+,-]*$/.test(value) ? value : `"${value.replace(/["$`\\]/g, "\\$&")}"`;
}

function exampleOf(variable: Variable): string {
  if (variable.example !== undefined) return variable.example;
  if (variable.secret || variable.defaultText || variable.default === null) return "";
  return String(variable.default);
}

export function renderEnvExample(): string {
  const out = [
    "# Every variable the service reads, with its default. All are optional in development.",
    "# The service reads the process environment only: export them, e.g. `set -a; . ./.env; set +a; npm start`.",
    `# Generated from ${SOURCE} by \`npm run generate\`: edit those, not this file.`,
    "# Bounds and details: docs/configuration.md. An empty value means the default.",
  ];
  for (const [area, variables] of byArea(VARIABLES.filter((variable) => SERVICE_AREAS.includes(variable.area)))) {
    out.push("", `# ${"=".repeat(4)} ${plain(AREAS[area])}`);
    for (const variable of variables) {
      const bounds = boundsOf(variable);
      const meaning = plain(variable.meaning);
      const notes = [`${meaning.charAt(0).toUpperCase()}${meaning.slice(1)}.`];
      if (bounds) notes.push(`Accepts: ${plain(bounds)}.`);
      if (variable.defaultText) notes.push(`Default: ${plain(variable.defaultText)}.`);
      out.push(...wrap(notes.join(" "), 100, "# "), `${variable.name}=${shellValue(exampleOf(variable))}`);
    }
  }
  return `${out.join("\n")}\n`;
}

/** A table cell of docs/configuration.md: links are to files beside it in docs/. */
function cell(markdown: string): string {
  return markdown.replace(/\|/g, "\\|");
}

export function renderConfigurationDoc(): string {
  const out = [
    "# Configuration",
    "",
    `<!-- Generated from ${SOURCE} by \`npm run generate\`; \`npm run check:generated\` fails when it drifts. Edit those files, not this one. -->`,
    "",
    "The service reads the process environment only (nothing loads `.env` for you; `.env.example`",
    "lists every variable with its default). `npm start` needs none of them: the defaults serve on port",
    "8402 with the embedded SQLite and, without payment configuration, an embedded local chain (test",
    "tokens, not real money). Every value is validated at start; a bad one stops the process with exit",
    "code 2 and a message naming each offending variable (a secret's value is never shown).",
    "",
    "`npm start` also sets glibc's `MALLOC_ARENA_MAX=2` and `MALLOC_MMAP_THRESHOLD_=131072`, which the",
    "service does not read: at most 2 malloc arenas (the model's thread and libuv's threads otherwise get",
    "their own), and blocks of 128 KB or more mapped and unmapped on their own (glibc's default threshold",
    "rises to 32 MB once a large buffer is freed, and freed memory below it stays resident). A process",
    "manager running node directly should set them too.",
  ];
  for (const [area, variables] of byArea(VARIABLES)) {
    out.push("", `## ${AREAS[area]}`, "", "| variable | default | bounds | meaning |", "|---|---|---|---|");
    for (const variable of variables) {
      out.push(
        `| \`${variable.name}\` | ${cell(defaultOf(variable))} | ${cell(boundsOf(variable))} | ${cell(variable.meaning)} |`,
      );
    }
  }
  return `${out.join("\n")}\n`;
}

/** The files this module renders, by path from the repository root. */
export function renderConfigurationFiles(): Map<string, string> {
  return new Map([
    [".env.example", renderEnvExample()],
    ["docs/configuration.md", renderConfigurationDoc()],
  ]);
}

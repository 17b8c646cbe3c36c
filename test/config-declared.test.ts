// Configuration is declared once (issue 44): every variable read in src/ is in the declaration table,
// every declared one is read, and .env.example and docs/configuration.md are what the generator writes
// from the table (`npm run check:generated` checks the same).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { SERVICE_AREAS, VARIABLES } from "../src/config-schema.js";
import { renderConfigurationFiles } from "../tools/config-docs.js";
import { problemsOf } from "./support/config.js";

const root = join(import.meta.dirname, "..");
// Scripts the service serves to buyers, run on their machines with their own variables.
const SERVED_SCRIPTS = "src/documents/scripts/";
// The declarations themselves, and the one reader that looks variables up by a computed name.
const DECLARATIONS = /^src\/config-vars-[a-z]+\.ts$/;
const READER = "src/config-schema.ts";

const sources = readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && /\.(ts|tsx|mjs|js)$/.test(entry.name))
  .map((entry) => relative(root, join(entry.parentPath, entry.name)))
  .filter((path) => !path.startsWith(SERVED_SCRIPTS))
  .map((path) => ({ path, text: readFileSync(join(root, path), "utf8") }));

const declaredNames = new Set<string>(VARIABLES.map((variable) => variable.name));

/** Names read straight from an environment object: `process.env.X`, `env.X`, `env["X"]`. */
function namesRead(text: string): string[] {
  const patterns = [
    /\b(?:process\.)?env\.([A-Z][A-Z0-9_]*)\b/g,
    /\b(?:process\.)?env\[\s*["'`]([A-Z][A-Z0-9_]*)["'`]\s*\]/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]!));
}

describe("configuration declared once", () => {
  it("declares every variable read in src/", () => {
    const undeclared = sources.flatMap(({ path, text }) =>
      namesRead(text)
        .filter((name) => !declaredNames.has(name))
        .map((name) => `${path}: ${name}`),
    );
    expect(undeclared).toEqual([]);
  });

  it("reads variables by a computed name or destructuring only in the declared reader", () => {
    const computed = /\b(?:process\.)?env\[\s*(?!["'`][A-Z])|\{[^}]*\}\s*=\s*process\.env\b/;
    const offenders = sources
      .filter(({ path, text }) => path !== READER && computed.test(text))
      .map(({ path }) => path);
    expect(offenders).toEqual([]);
  });

  it("reads every declared variable somewhere in src/", () => {
    const readers = sources.filter(({ path }) => !DECLARATIONS.test(path));
    const unread = [...declaredNames].filter(
      (name) => !readers.some(({ text }) => text.includes(`"${name}"`) || text.includes(`.${name}`)),
    );
    expect(unread).toEqual([]);
  });

  it.each([...renderConfigurationFiles()])("%s is what the generator writes from the table", (path, text) => {
    expect(readFileSync(join(root, path), "utf8"), `${path} drifted: run npm run generate`).toBe(text);
  });

  it(".env.example names every service variable and, sourced by a shell, gives the defaults", () => {
    const service = VARIABLES.filter((variable) => SERVICE_AREAS.includes(variable.area)).map(
      (variable) => variable.name,
    );
    const example = readFileSync(join(root, ".env.example"), "utf8");
    expect([...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]).sort()).toEqual([...service].sort());

    const printed = execFileSync(
      "sh",
      ["-c", `set -a; . ./.env.example; set +a; exec "${process.execPath}" -p 'JSON.stringify(process.env)'`],
      {
        cwd: root,
        env: { PATH: process.env.PATH },
        encoding: "utf8",
      },
    );
    const sourced = JSON.parse(printed) as Record<string, string>;
    const env = Object.fromEntries(service.map((name) => [name, sourced[name]]));
    expect(env.MARKETPLACE_NAME).toBe("x402 agent marketplace");
    expect(loadConfig(env)).toEqual(loadConfig({}));
  });
});

describe("secret variables", () => {
  const secrets = VARIABLES.filter(
    (variable) => "secret" in variable && variable.secret && SERVICE_AREAS.includes(variable.area),
  );

  it.each(secrets.map((variable) => variable.name))(
    "%s: a bad value is refused, naming the variable, without echoing it",
    (name) => {
      const value = "not a valid secret: hunter2";
      const problems = problemsOf({ [name]: value });
      expect(problems.some((problem) => problem.startsWith(name))).toBe(true);
      expect(problems.join("\n")).not.toContain("hunter2");
    },
  );
});

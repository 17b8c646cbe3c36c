/**
 * `npm run generate` writes every generated file; `--check` writes nothing and fails when any
 * generated file would change or is no longer produced (CI's drift check). Besides generated/, it
 * writes .env.example and docs/configuration.md from the configuration declarations.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { renderConfigurationFiles } from "./config-docs.js";
import { renderAll, root } from "./contract-build.js";

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

async function main(): Promise<void> {
  const check = process.argv.includes("--check");
  const files = await renderAll();
  for (const [path, text] of renderConfigurationFiles()) files.set(path, text);
  const stale = listFiles(join(root, "generated")).filter((path) => !files.has(path));
  const changed = [...files].filter(([path, text]) => {
    const file = join(root, path);
    return !existsSync(file) || readFileSync(file, "utf8") !== text;
  });
  if (check) {
    if (changed.length === 0 && stale.length === 0) {
      console.log(`generated files are up to date (${files.size} files)`);
      return;
    }
    for (const [path] of changed) console.error(`out of date: ${path}`);
    for (const path of stale) console.error(`not produced by the generator: ${path}`);
    console.error("Run `npm run generate` and commit the result.");
    process.exitCode = 1;
    return;
  }
  for (const path of stale) rmSync(join(root, path));
  for (const [path, text] of changed) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  console.log(
    `wrote ${changed.length} of ${files.size} generated files${stale.length ? `, removed ${stale.length} stale` : ""}`,
  );
}

await main();

#!/usr/bin/env node
// Builds dist/ from src/ and generated/: esbuild transpiles every .ts/.tsx file one to one (no
// bundling, source maps), then the files the compiled service reads at run time are copied beside it:
// the contract (generated/openapi.json), the migrations (prisma/) and the example scripts.
// `npm run build` also has tsc write the type declarations the package's exports point at.
// `--if-stale` builds only what is missing or older than any source; `--transpile-only` skips the
// declarations. `npm start` runs both: a fresh clone's `npm ci && npm start` is ready in seconds,
// a second start costs a few ms. Type checking is `npm run typecheck` (part of `npm test`), not the start's business.
// Plain JavaScript on purpose: it runs before anything is compiled, and without tsx.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, linkSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const stamp = join(dist, ".build-stamp");
const declarationsStamp = join(dist, ".declarations-stamp");
const lock = join(root, ".dist.lock");
const requireHere = createRequire(join(root, "package.json"));

/** What the build reads: any of these newer than the stamp makes dist/ stale. */
const SOURCES = ["src", "generated", "prisma", "tsconfig.json", "tsconfig.build.json", "package.json"];
/** Transpiled to dist/ with the same relative paths. */
const COMPILED = ["src", "generated"];
/** Read at run time relative to the compiled modules (import.meta.url), so copied beside them. */
const ASSETS = [
  "generated/openapi.json",
  "generated/contracts.json",
  "prisma",
  "src/documents/scripts",
  "src/search/model",
];

function newestMtime(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function isStale(stampFile) {
  if (!existsSync(stampFile)) return true;
  const built = statSync(stampFile).mtimeMs;
  return SOURCES.some((source) => newestMtime(join(root, source)) > built);
}

function typeScriptFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...typeScriptFiles(path));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) files.push(path);
  }
  return files;
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/**
 * One build at a time (several `npm start`s of a test suite may find dist/ stale together). The lock
 * is a file holding the builder's pid, created whole by a hard link (atomic, fails if it exists), so
 * a waiter can tell a live build from a killed one and take over at once instead of waiting it out.
 */
async function withLock(work) {
  const mine = `${lock}.${process.pid}`;
  writeFileSync(mine, `${process.pid}\n`);
  const deadline = Date.now() + 300_000;
  try {
    for (;;) {
      try {
        linkSync(mine, lock);
        break;
      } catch (error) {
        if (error.code !== "EEXIST") throw error;
        let holder = 0;
        try {
          holder = Number.parseInt(readFileSync(lock, "utf8").trim(), 10) || 0;
        } catch {
          continue; // released meanwhile
        }
        if (!holder || !isRunning(holder)) {
          console.error(`build: removing the lock left by a build that is gone (pid ${holder || "unknown"})`);
          rmSync(lock, { force: true });
          continue;
        }
        if (Date.now() > deadline)
          throw new Error(`build ${holder} holds ${lock}; remove it if no build is running`, { cause: error });
        sleep(100);
      }
    }
  } finally {
    rmSync(mine, { force: true });
  }
  // process.exit (a failed tsc) skips finally blocks; the exit event does not.
  const release = () => rmSync(lock, { force: true });
  process.once("exit", release);
  try {
    return await work();
  } finally {
    release();
    process.off("exit", release);
  }
}

async function transpile() {
  let esbuild;
  try {
    esbuild = await import(requireHere.resolve("esbuild"));
  } catch {
    console.error(
      "building dist/ needs the dev dependency esbuild (npm ci without --omit=dev); or build elsewhere and deploy dist/",
    );
    process.exit(1);
  }
  const entryPoints = COMPILED.flatMap((dir) => typeScriptFiles(join(root, dir)));
  await esbuild.build({
    entryPoints,
    outdir: dist,
    outbase: root,
    bundle: false,
    format: "esm",
    platform: "node",
    target: "node20.19",
    sourcemap: true,
    tsconfig: join(root, "tsconfig.build.json"),
    logLevel: "warning",
  });
  return entryPoints.length;
}

function declarations() {
  let tsc;
  try {
    tsc = requireHere.resolve("typescript/bin/tsc");
  } catch {
    console.error(
      "npm run build needs the dev dependency typescript (npm ci without --omit=dev); or build elsewhere and deploy dist/",
    );
    process.exit(1);
  }
  const result = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--emitDeclarationOnly"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
  });
  // Status 2: type errors, but every declaration emitted. `npm run build` refuses that.
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function copyAssets() {
  for (const asset of ASSETS) {
    const to = join(dist, asset);
    rmSync(to, { recursive: true, force: true });
    cpSync(join(root, asset), to, { recursive: true });
  }
}

async function build({ code, withDeclarations, say }) {
  if (code) {
    const started = Date.now();
    say(`building ${relative(process.cwd(), dist)}/ from src/ (esbuild)...`);
    const files = await transpile();
    copyAssets();
    writeFileSync(stamp, `${new Date().toISOString()}\n`);
    say(`transpiled ${files} files to ${relative(process.cwd(), dist)}/ in ${Date.now() - started} ms`);
  }
  if (withDeclarations) {
    const typed = Date.now();
    say("writing type declarations (tsc --emitDeclarationOnly)...");
    declarations();
    writeFileSync(declarationsStamp, `${new Date().toISOString()}\n`);
    say(`declarations in ${Date.now() - typed} ms`);
  }
}

const ifStale = process.argv.includes("--if-stale");
const transpileOnly = process.argv.includes("--transpile-only");
// Before `npm start`, progress goes to stderr: stdout is the service's log stream.
const say = transpileOnly ? (line) => console.error(line) : (line) => console.log(line);
const needed = () => ({
  code: !ifStale || isStale(stamp),
  declarations: !transpileOnly && (!ifStale || isStale(declarationsStamp)),
});
if (needed().code || needed().declarations) {
  await withLock(async () => {
    // Whoever held the lock may just have built it.
    const { code, declarations } = needed();
    if (code || declarations) await build({ code, withDeclarations: declarations, say });
  });
}

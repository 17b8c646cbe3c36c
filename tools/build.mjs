#!/usr/bin/env node
// `npm run build`: compiles src/ and generated/ to dist/ (JavaScript, declarations, source maps)
// with tsconfig.build.json, then copies the files the compiled service reads at run time beside
// it: the contract (generated/openapi.json), the migrations (prisma/) and the example scripts.
// `--if-stale` (what `npm start` runs first) builds only when dist/ is missing or older than any
// source, so a fresh clone's `npm ci && npm start` works and a second start costs a few ms.
// Plain JavaScript on purpose: it runs before anything is compiled, and without tsx.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const stamp = join(dist, ".build-stamp");
const lock = join(root, ".dist.lock");

/** What the build reads: any of these newer than the stamp makes dist/ stale. */
const SOURCES = ["src", "generated", "prisma", "tsconfig.json", "tsconfig.build.json", "package.json"];
/** Read at run time relative to the compiled modules (import.meta.url), so copied beside them. */
const ASSETS = ["generated/openapi.json", "generated/contracts.json", "prisma", "src/documents/scripts", "src/search/model"];

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

function isStale() {
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return SOURCES.some((source) => newestMtime(join(root, source)) > built);
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** One build at a time (several `npm start`s of a test suite may find dist/ stale together). */
function withLock(work) {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      // A lock older than any build could take was left by a killed build.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 180_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`another build holds ${lock}; remove it if no build is running`);
      sleep(200);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function build(quiet) {
  let tsc;
  try {
    tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
  } catch {
    console.error("npm run build needs the dev dependency typescript (npm ci without --omit=dev); or build elsewhere and deploy dist/");
    process.exit(1);
  }
  const started = Date.now();
  // tsc prints its diagnostics on stdout; before `npm start` that is the service's log stream.
  const result = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { cwd: root, stdio: ["ignore", quiet ? 2 : "inherit", "inherit"] });
  // Status 2: type errors, but every file emitted. `npm run build` refuses that; `npm start` runs
  // what it has (npm run typecheck and npm test report the errors).
  if (result.status === 2 && quiet) console.error("dist/ was built despite type errors (see above); run npm run typecheck");
  else if (result.status !== 0) process.exit(result.status ?? 1);
  for (const asset of ASSETS) {
    const from = join(root, asset);
    const to = join(dist, asset);
    rmSync(to, { recursive: true, force: true });
    cpSync(from, to, { recursive: true });
  }
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  // `npm start` stays quiet: its stderr is the service's, and a process manager may read it.
  if (!quiet) console.log(`built dist/ in ${Date.now() - started} ms`);
}

const ifStale = process.argv.includes("--if-stale");
if (!ifStale || isStale()) {
  withLock(() => {
    // Whoever held the lock may just have built it.
    if (!ifStale || isStale()) build(ifStale);
  });
}

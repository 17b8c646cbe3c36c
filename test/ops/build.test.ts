// The compiled build as users meet it: `npm start` runs dist/ (built first when missing, as on a
// fresh clone), and the package's bin and exports are JavaScript with declarations, no tsx. Node 20
// cannot load a .ts file by itself, so running them with plain `node` proves they are compiled.
import { execFile, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type ServiceProcess } from "../support/process.js";

const run = promisify(execFile);
const root = resolve(".");
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
  bin: Record<string, string>;
  exports: Record<string, { types: string; default: string }>;
  scripts: Record<string, string>;
};

beforeAll(() => {
  const built = spawnSync(process.execPath, ["tools/build.mjs", "--if-stale"], { cwd: root, encoding: "utf8" });
  expect(built.status, built.stderr).toBe(0);
}, 180_000);

describe("npm start", () => {
  let service: ServiceProcess | undefined;
  afterAll(() => service?.kill());

  it("runs the compiled service with the V8 flags, without tsx, and stops cleanly", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ops-start-"));
    service = await startService({
      DATABASE_URL: `file:${join(dir, "m.db")}`,
      DEV_CHAIN_FILE: join(dir, "chain.json"),
      LOAD_SEED: "false",
    });
    const argv = readFileSync(`/proc/${service.pid}/cmdline`, "utf8").split("\0");
    expect(argv).toContain("dist/src/main.js");
    expect(argv).toEqual(
      expect.arrayContaining([
        "--max-semi-space-size=4",
        "--max-old-space-size=384",
        "--heap-growing-percent=10",
        "--liftoff-only",
      ]),
    );
    expect(argv.join(" ")).not.toMatch(/tsx/);
    expect((await service.fetch("/livez")).status).toBe(200);
    expect((await service.fetch("/readyz")).status).toBe(200);
    const stopped = await service.stop();
    expect(stopped.code).toBe(0);
    expect(service.problems()).toEqual([]);
  });

  it("builds dist/ first on a fresh clone, saying so, past the lock a killed build left, then serves from it", async () => {
    const clone = mkdtempSync(join(tmpdir(), "ops-clone-"));
    try {
      await run("git", ["clone", "--quiet", "--depth", "1", `file://${root}`, clone]);
      symlinkSync(join(root, "node_modules"), join(clone, "node_modules"));
      expect(existsSync(join(clone, "dist"))).toBe(false);
      // What a build killed mid-way leaves: its lock, naming a process that no longer runs.
      const gone = spawnSync(process.execPath, ["-e", ""]);
      writeFileSync(join(clone, ".dist.lock"), `${gone.pid}\n`);
      let err = "";
      const child = spawn("npm", ["start", "--silent"], {
        cwd: clone,
        env: {
          ...process.env,
          PORT: "0",
          DATABASE_URL: `file:${join(clone, "data", "m.db")}`,
          DEV_CHAIN_FILE: join(clone, ".dev", "chain.json"),
          LOAD_SEED: "false",
          NODE_ENV: "",
        },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      try {
        const url = await new Promise<string>((resolveUrl, reject) => {
          let out = "";
          child.stdout!.on("data", (chunk: Buffer) => {
            out += chunk.toString();
            const match = /"url":"([^"]+)"[^\n]*"msg":"marketplace listening"/.exec(out);
            if (match) resolveUrl(match[1]!);
          });
          child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
          child.on("exit", (code) => reject(new Error(`npm start exited ${code}\n${out}\n${err}`)));
        });
        expect(existsSync(join(clone, "dist", "src", "main.js"))).toBe(true);
        expect(existsSync(join(clone, ".dist.lock"))).toBe(false);
        expect(err).toContain(`removing the lock left by a build that is gone (pid ${gone.pid})`);
        expect(err).toMatch(/building dist\/ from src\/[^]*transpiled \d+ files/);
        expect(existsSync(join(clone, "dist", "generated", "openapi.json"))).toBe(true);
        expect((await fetch(`${url}/livez`)).status).toBe(200);
        expect((await fetch(`${url}/llms.txt`)).status).toBe(200);
      } finally {
        process.kill(-child.pid!, "SIGTERM");
        await new Promise((done) => child.on("close", done));
      }
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  }, 240_000);
});

describe("the package's bin and exports", () => {
  it("points bin and exports at compiled JavaScript with declarations", () => {
    expect(pkg.bin["x402-market"]).toMatch(/^dist\/.*\.js$/);
    for (const entry of Object.values(pkg.exports)) {
      expect(entry.default).toMatch(/^\.\/dist\/.*\.js$/);
      expect(existsSync(entry.default)).toBe(true);
      expect(existsSync(entry.types)).toBe(true);
    }
  });

  it("runs the CLI from bin with plain node (no tsx)", async () => {
    const { stdout } = await run(process.execPath, [pkg.bin["x402-market"]!, "--help"], {
      env: { PATH: process.env.PATH! },
    });
    expect(stdout).toContain("Usage: x402-market");
    // The shebang is kept, so the linked bin runs by itself.
    expect(readFileSync(pkg.bin["x402-market"]!, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("imports the client by the package's name with plain node", async () => {
    const script =
      'const client = await import("x402-marketplace/client"); console.log(typeof client.createMarketplaceClient);';
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
      cwd: root,
      env: { PATH: process.env.PATH! },
    });
    expect(stdout.trim()).toBe("function");
  });
});

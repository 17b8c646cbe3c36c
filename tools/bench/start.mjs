#!/usr/bin/env node
// `node tools/bench/start.mjs [runs] -- <command...>`: how long a start command takes to log
// "marketplace listening" on a fresh SQLite file (embedded chain, seed rows loaded), and the
// service's resident memory then and after 200 catalog reads. Default command: `npm start`.
// The compiled start against the former tsx one: `node tools/bench/start.mjs 5 -- node --import tsx src/main.ts`.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const separator = process.argv.indexOf("--");
const runs = Number(process.argv[2] && process.argv[2] !== "--" ? process.argv[2] : 3);
const command = separator > 0 ? process.argv.slice(separator + 1) : ["npm", "start", "--silent"];

function rssOfGroup(pgid) {
  let kib = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) !== pgid) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      // The service's node process only (not npm, the shell or the embedded chain).
      if (!/main\.(ts|js)/.test(cmdline)) continue;
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return Math.round(kib / 1024);
}

async function once() {
  const dir = mkdtempSync(join(tmpdir(), "start-bench-"));
  const started = performance.now();
  const child = spawn(command[0], command.slice(1), {
    env: {
      ...process.env,
      PORT: "0",
      DATABASE_URL: `file:${join(dir, "m.db")}`,
      DEV_CHAIN_FILE: join(dir, "chain.json"),
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  const url = await new Promise((resolve, reject) => {
    let pending = "";
    child.stdout.on("data", (chunk) => {
      pending += chunk;
      const match = /"url":"([^"]+)"[^\n]*marketplace listening|marketplace listening[^\n]*"url":"([^"]+)"/.exec(
        pending,
      );
      if (match) resolve(match[1] ?? match[2]);
    });
    child.on("exit", (code) => reject(new Error(`exited ${code}`)));
  });
  const ms = performance.now() - started;
  const rssReady = rssOfGroup(child.pid);
  for (let i = 0; i < 200; i++) await (await fetch(`${url}/bazaar.json?limit=${(i % 20) + 1}`)).arrayBuffer();
  const rssWarm = rssOfGroup(child.pid);
  process.kill(-child.pid, "SIGTERM");
  await new Promise((resolve) => child.on("close", resolve));
  return { ms, rssReady, rssWarm };
}

const results = [];
for (let i = 0; i < runs; i++) results.push(await once());
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`command: ${command.join(" ")}`);
console.log(`runs: ${runs}`);
console.log(
  `start to listening, median: ${Math.round(median(results.map((r) => r.ms)))} ms (all: ${results.map((r) => Math.round(r.ms)).join(", ")})`,
);
console.log(`service RSS at listening, median: ${median(results.map((r) => r.rssReady))} MiB`);
console.log(`service RSS after 200 catalog reads, median: ${median(results.map((r) => r.rssWarm))} MiB`);

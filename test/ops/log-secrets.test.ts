// No log line carries a configured secret: the service runs (`npm start`, as users run it) with
// CHAIN_RPC_URL naming a loopback "node" whose URL holds a user and password, a key in its path and
// a token in its query, as RPC providers hand them out. The node answers 500, then drops every
// connection; the start check, the usage indexer, the reconciler and /readyz all meet the failure
// and log it (viem's errors carry the node's URL in their message). Every line is read.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { startService, type ServiceProcess } from "../support/process.js";

const SECRETS = {
  user: "rpcuser7f3a",
  password: "pw-Zx81kQ-hunter2",
  pathKey: "k3yPathSecret0123456789abcdefXYZ",
  queryToken: "tokSecret9876abcdQ",
  queryKey: "Qk55secretKeyValue77",
};

let service: ServiceProcess | undefined;
const closers: Array<() => Promise<void>> = [];
let dir: string | undefined;

afterAll(async () => {
  service?.kill();
  for (const close of closers) await close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const until = async (condition: () => boolean, timeoutMs: number) => {
  for (const deadline = Date.now() + timeoutMs; !condition() && Date.now() < deadline;)
    await new Promise((resolve) => setTimeout(resolve, 200));
};

it(
  "keeps every part of CHAIN_RPC_URL's credentials out of every log line while the node fails",
  { timeout: 300_000 },
  async () => {
    let nodeMode: "500" | "drop" = "500";
    let nodeRequests = 0;
    const node = await listen((req, res) => {
      nodeRequests++;
      req.resume();
      if (nodeMode === "drop") return req.socket.destroy();
      res.writeHead(500, { "content-type": "text/plain" }).end("internal error");
    });
    const facilitator = await listen((req, res) => {
      req.resume();
      res.setHeader("content-type", "application/json");
      if (req.url === "/supported")
        return res.end(
          JSON.stringify({
            kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }],
            extensions: [],
            signers: {},
          }),
        );
      res.end(JSON.stringify({ isValid: false, invalidReason: "invalid_exact_evm_signature" }));
    });
    dir = await mkdtemp(join(tmpdir(), "log-secrets-"));
    const rpcUrl = `http://${SECRETS.user}:${SECRETS.password}@${node}/v2/${SECRETS.pathKey}?apikey=${SECRETS.queryKey}&token=${SECRETS.queryToken}`;
    service = await startService(
      {
        DATABASE_URL: `file:${join(dir, "marketplace.db")}`,
        FACILITATOR_URL: `http://${facilitator}`,
        MARKETPLACE_PAY_TO: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        CHAIN_RPC_URL: rpcUrl,
        USAGE_INTERVAL_SECONDS: "1",
        RECONCILE_INTERVAL_SECONDS: "1",
        LOG_LEVEL: "debug",
      },
      { readyTimeoutMs: 150_000 },
    );
    const nodeLines = () => service!.logs.filter((line) => JSON.stringify(line).includes(node));
    // The failures are logged (with the node's host, so the test sees the URL was there to leak).
    await until(() => nodeLines().length >= 2 && nodeRequests >= 3, 60_000);
    expect((await service.fetch("/readyz")).status).toBe(503);
    nodeMode = "drop";
    const before = nodeRequests;
    await until(() => nodeRequests >= before + 3, 60_000);
    expect((await service.fetch("/readyz")).status).toBe(503);
    await service.stop();

    expect(nodeLines().length).toBeGreaterThan(0);
    const everything = [...service.logs.map((line) => JSON.stringify(line)), service.stderr()];
    for (const [part, secret] of Object.entries(SECRETS)) {
      const leaking = everything.filter((line) => line.includes(secret) || line.includes(encodeURIComponent(secret)));
      expect(leaking, `${part} appears in ${leaking.length} log lines, e.g. ${leaking[0]?.slice(0, 400)}`).toEqual([]);
    }
  },
);

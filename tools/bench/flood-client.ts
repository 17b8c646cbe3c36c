/**
 * One flood, in its own process (so it does not share a thread with the reads it is measured
 * against): `connections` keep-alive connections from each source address, each sending the next
 * request as soon as the last is answered, for `seconds`. Prints {requests, statuses} as JSON.
 *   node --import tsx tools/bench/flood-client.ts '{"url":..., "shape":..., "addresses":[...], ...}'
 */
import { Agent, request } from "node:http";

export type FloodShape = "pages" | "pages404" | "searches" | "searches404" | "mcp" | "mcp404";

export interface FloodPlan {
  url: string;
  shape: FloodShape;
  addresses: string[];
  connectionsPerAddress: number;
  seconds: number;
  /** Requests in each MCP batch. */
  batch: number;
}

const int = (from: number, to: number) => from + Math.floor(Math.random() * (to - from + 1));
const word = () => Math.random().toString(36).slice(2, 10);
const LIST_PATHS = ["/discovery/resources", "/bazaar.json", "/resources", "/catalog.json", "/market"];

/** An uncached catalog page: random filter values on the list routes and their aliases, or a feed with a random since. */
function page(): string {
  if (Math.random() < 0.25) return `/feed.json?since=${new Date(Date.now() - int(0, 1e10)).toISOString()}`;
  const path = LIST_PATHS[int(0, LIST_PATHS.length - 1)]!;
  return `${path}?limit=${int(1, 50)}&offset=${int(0, 999)}&network=eip155:${int(1, 1e6)}`;
}

function mcpBatch(size: number): string {
  return JSON.stringify(
    Array.from({ length: size }, (_, id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "list_market", arguments: { query: word() } },
    })),
  );
}

/** The request of `shape`; each 404 shape is its twin's request on a path no route has. */
function next(plan: FloodPlan): { method: string; path: string; body?: string } {
  switch (plan.shape) {
    case "pages":
      return { method: "GET", path: page() };
    case "pages404":
      return { method: "GET", path: `/no-such${page()}` };
    case "searches":
      return { method: "GET", path: `/discovery/search?query=${word()}` };
    case "searches404":
      return { method: "GET", path: `/no-such/search?query=${word()}` };
    case "mcp":
      return { method: "POST", path: "/mcp", body: mcpBatch(plan.batch) };
    case "mcp404":
      return { method: "POST", path: "/no-such/mcp", body: mcpBatch(plan.batch) };
  }
}

function send(agent: Agent, url: URL, one: { method: string; path: string; body?: string }): Promise<number> {
  return new Promise((resolve) => {
    const sent = request(
      {
        host: url.hostname,
        port: url.port,
        agent,
        method: one.method,
        path: one.path,
        headers: one.body ? { "content-type": "application/json", accept: "application/json, text/event-stream" } : {},
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
        response.on("error", () => resolve(-1));
      },
    );
    sent.on("error", () => resolve(-1));
    sent.end(one.body);
  });
}

async function flood(plan: FloodPlan): Promise<{ requests: number; statuses: Record<string, number> }> {
  const url = new URL(plan.url);
  const deadline = Date.now() + plan.seconds * 1000;
  const statuses: Record<string, number> = {};
  let requests = 0;
  const agents = plan.addresses.map(
    (localAddress) => new Agent({ keepAlive: true, maxSockets: plan.connectionsPerAddress, localAddress }),
  );
  const loops = agents.flatMap((agent) =>
    Array.from({ length: plan.connectionsPerAddress }, async () => {
      while (Date.now() < deadline) {
        const status = await send(agent, url, next(plan));
        statuses[status] = (statuses[status] ?? 0) + 1;
        requests++;
      }
    }),
  );
  await Promise.all(loops);
  for (const agent of agents) agent.destroy();
  return { requests, statuses };
}

if (process.argv[2]) {
  process.stderr.write("flood started\n");
  process.stdout.write(`${JSON.stringify(await flood(JSON.parse(process.argv[2]) as FloodPlan))}\n`);
}

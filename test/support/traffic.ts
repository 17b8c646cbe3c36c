// Light, mixed, steady traffic against running services: catalog reads, searches with distinct
// queries, feeds, the status document and MCP tools/list, each answer checked.

export interface TrafficReport {
  requests: number;
  /** One line per wrong answer: method, path, origin, what was wrong. */
  failures: string[];
  /** Requests sent per route, to show that every kind was exercised. */
  perRoute: Record<string, number>;
}

interface Probe {
  route: string;
  request(n: number): { path: string; init?: RequestInit };
  /** Why the answer is wrong, or null. */
  check(body: string): string | null;
}

const MCP_TOOLS = ["list_market", "how_to_sell", "how_to_buy", "validate_listing"];

function json(body: string): Record<string, unknown> | null {
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return null;
  }
}

const jsonWith =
  (...arrays: string[]) =>
  (body: string): string | null => {
    const parsed = json(body);
    if (!parsed) return "not JSON";
    const missing = arrays.filter((name) => !Array.isArray(parsed[name]));
    return missing.length ? `no ${missing.join(", ")} array` : null;
  };

const PROBES: Probe[] = [
  { route: "GET /bazaar.json", request: () => ({ path: "/bazaar.json" }), check: jsonWith("items") },
  {
    route: "GET /discovery/resources",
    request: () => ({ path: "/discovery/resources?limit=5" }),
    check: jsonWith("items"),
  },
  {
    route: "GET /search",
    request: (n) => ({ path: `/search?query=${encodeURIComponent(`weather ${n}`)}` }),
    check: jsonWith("items", "resources"),
  },
  {
    route: "GET /discovery/search",
    request: (n) => ({ path: `/discovery/search?query=${encodeURIComponent(`translate-${n}`)}&limit=3` }),
    check: jsonWith("items", "resources"),
  },
  {
    route: "GET /feed.atom",
    request: () => ({ path: "/feed.atom" }),
    check: (body) => (/<feed[\s>]/.test(body) && body.trimEnd().endsWith("</feed>") ? null : "not an Atom feed"),
  },
  { route: "GET /feed.json", request: () => ({ path: "/feed.json" }), check: jsonWith("items") },
  {
    route: "GET /status.json",
    request: () => ({ path: "/status.json" }),
    check: (body) => (json(body)?.ok === true ? null : "status is not ok"),
  },
  {
    route: "POST /mcp tools/list",
    request: (n) => ({
      path: "/mcp",
      init: {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: n, method: "tools/list" }),
      },
    }),
    check: (body) => {
      const tools = (json(body)?.result as { tools?: { name: string }[] } | undefined)?.tools?.map((tool) => tool.name);
      return tools && MCP_TOOLS.every((name) => tools.includes(name)) ? null : "tools/list lacks the tools";
    },
  },
];

/**
 * Sends about `perSecond` requests a second, one at a time, cycling through the routes and the
 * origins, until stopped. Every answer must be 200 with the expected body.
 */
export function startLightTraffic(
  origins: string[],
  options: { perSecond?: number } = {},
): { stop(): Promise<TrafficReport> } {
  const intervalMs = 1000 / (options.perSecond ?? 4);
  const report: TrafficReport = { requests: 0, failures: [], perRoute: {} };
  let running = true;
  const loop = (async () => {
    for (let n = 0; running; n++) {
      const started = Date.now();
      const probe = PROBES[n % PROBES.length]!;
      const origin = origins[Math.floor(n / PROBES.length) % origins.length]!;
      const { path, init } = probe.request(n);
      report.requests++;
      report.perRoute[probe.route] = (report.perRoute[probe.route] ?? 0) + 1;
      try {
        const response = await fetch(`${origin}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
        const body = await response.text();
        const wrong = response.status === 200 ? probe.check(body) : `status ${response.status}: ${body.slice(0, 200)}`;
        if (wrong) report.failures.push(`${init?.method ?? "GET"} ${path} at ${origin}: ${wrong}`);
      } catch (error) {
        report.failures.push(`${init?.method ?? "GET"} ${path} at ${origin}: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - (Date.now() - started))));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return report;
    },
  };
}

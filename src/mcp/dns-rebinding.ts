// DNS-rebinding protection for the MCP endpoint: a page on another site must not reach it through
// a hostname that resolves to this server. The SDK's transport options for this are deprecated in
// favour of middleware, and its middleware is Express-only, so the same rule lives here: Host is
// compared by hostname (any port), Origin by exact origin.
import type { Config } from "../config.js";

const LOCAL_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]"];

export interface RebindingRules {
  hostnames: string[];
  origins: string[];
  /** Development: any origin on a local hostname (any port, http or https), e.g. a local inspector. */
  localOrigins: boolean;
  /** Behind a trusted reverse proxy the public host arrives in X-Forwarded-Host. */
  trustProxy: boolean;
}

export function rebindingRules(config: Pick<Config, "publicBaseUrl" | "production" | "trustProxy">): RebindingRules {
  const publicUrl = new URL(config.publicBaseUrl);
  const development = !config.production;
  return {
    hostnames: [...new Set([publicUrl.hostname, ...(development ? LOCAL_HOSTNAMES : [])])],
    origins: [publicUrl.origin],
    localOrigins: development,
    trustProxy: config.trustProxy,
  };
}

function hostnameOf(host: string, base: "http://" | ""): string | null {
  try {
    return new URL(`${base}${host}`).hostname;
  } catch {
    return null;
  }
}

const first = (value: string | undefined) => value?.split(",")[0]?.trim() || undefined;

/** Why the request is refused, or null when its Host and Origin are allowed. */
export function rebindingRefusal(headers: Record<string, string | undefined>, rules: RebindingRules): string | null {
  const host = (rules.trustProxy ? first(headers["x-forwarded-host"]) : undefined) ?? headers.host;
  if (!host) return "Missing Host header";
  const hostname = hostnameOf(host, "http://");
  if (hostname === null || !rules.hostnames.includes(hostname)) return `Invalid Host: ${host}`;
  const origin = headers.origin;
  if (origin === undefined) return null;
  if (rules.origins.includes(origin)) return null;
  const originHost = hostnameOf(origin, "");
  if (rules.localOrigins && originHost !== null && LOCAL_HOSTNAMES.includes(originHost) && /^https?:/.test(origin))
    return null;
  return `Invalid Origin: ${origin}`;
}

import { isAddress } from "viem";

/** Base mainnet USDC, the asset `price: "$0.10"` resolves to on eip155:8453. */
export const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

export interface Config {
  production: boolean;
  port: number;
  host: string;
  /** Origin every absolute link is built from, without a trailing slash. */
  publicBaseUrl: string;
  /** False when PUBLIC_BASE_URL was not set: the origin then follows the port actually bound. */
  publicBaseUrlExplicit: boolean;
  databaseUrl: string;
  /** The marketplace wallet receiving listing fees; null until configured (development only). */
  marketplacePayTo: string | null;
  asset: string;
  network: "eip155:8453";
  marketplaceName: string;
  logLevel: string;
  maxBodyBytes: number;
  /** Load the first-party `/kr-*` demo rows at start. */
  loadSeed: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** Reads and validates the environment, reporting every problem at once. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const production = env.NODE_ENV === "production";

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  };
  const flag = (name: string, fallback: boolean): boolean => {
    const raw = env[name]?.toLowerCase();
    if (raw === undefined || raw === "") return fallback;
    if (["1", "true", "yes", "on"].includes(raw)) return true;
    if (["0", "false", "no", "off"].includes(raw)) return false;
    problems.push(`${name} must be true or false, got "${env[name]}"`);
    return fallback;
  };
  const address = (name: string): string | null => {
    const raw = env[name];
    if (raw === undefined || raw === "") return null;
    if (!isAddress(raw, { strict: false })) {
      problems.push(`${name} must be a 0x address of 40 hex digits, got "${raw}"`);
      return null;
    }
    return raw;
  };

  const port = integer("PORT", 8402, 0, 65535);
  const host = env.HOST || (production ? "0.0.0.0" : "127.0.0.1");
  const publicBaseUrl = parseBaseUrl(env.PUBLIC_BASE_URL, `http://localhost:${port}`, problems);
  const databaseUrl = env.DATABASE_URL || "file:./data/marketplace.db";
  if (!/^(file:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL), got "${databaseUrl}"`);
  }
  const marketplacePayTo = address("MARKETPLACE_PAY_TO");
  if (production && !marketplacePayTo) problems.push("MARKETPLACE_PAY_TO is required in production (NODE_ENV=production)");
  const asset = address("ASSET_ADDRESS") ?? BASE_USDC;
  const logLevel = env.LOG_LEVEL || "info";
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);

  const config: Config = {
    production,
    port,
    host,
    publicBaseUrl,
    publicBaseUrlExplicit: Boolean(env.PUBLIC_BASE_URL),
    databaseUrl,
    marketplacePayTo,
    asset,
    network: "eip155:8453",
    marketplaceName: env.MARKETPLACE_NAME || "x402 agent marketplace",
    logLevel,
    maxBodyBytes: integer("MAX_BODY_BYTES", 64 * 1024, 1024, 10 * 1024 * 1024),
    loadSeed: flag("LOAD_SEED", true),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function parseBaseUrl(raw: string | undefined, fallback: string, problems: string[]): string {
  if (raw === undefined || raw === "") return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`PUBLIC_BASE_URL must be an absolute http(s) URL, got "${raw}"`);
    return fallback;
  }
  if (!["http:", "https:"].includes(url.protocol) || url.pathname !== "/" || url.search || url.hash) {
    problems.push(`PUBLIC_BASE_URL must be an http(s) origin such as https://market.example.com, got "${raw}"`);
    return fallback;
  }
  return url.origin;
}

// The payment half of the configuration: which facilitator settles listing fees, and the chain it reads.
import type { Hex } from "viem";
import type { EnvReader } from "./config-schema.js";

/**
 * How listing fees are verified and settled: a remote facilitator, our own in-process facilitator
 * settling with our key over an RPC URL, or (development only) an embedded local chain.
 */
export type FacilitatorMode = "remote" | "self" | "embedded";

export interface PaymentsConfig {
  mode: FacilitatorMode;
  /** Remote mode: the facilitator's base URL (it serves /verify, /settle, /supported). */
  facilitatorUrl: string | null;
  /** Remote mode: headers sent with every facilitator call (e.g. Authorization). */
  facilitatorAuthHeaders: Record<string, string>;
  /** Bound on one verify or settle call, remote or in-process. */
  facilitatorTimeoutMs: number;
  /** Self mode: node the settler broadcasts through. */
  settlementRpcUrl: string | null;
  settlerPrivateKey: Hex | null;
  /** Node the reconciler reads authorizationState from; defaults to settlementRpcUrl. */
  chainRpcUrl: string | null;
  /** EIP-712 domain of the payment token, sent as `extra` in every requirement. */
  tokenName: string;
  tokenVersion: string;
  /** 0 turns the reconciler off. */
  reconcileIntervalMs: number;
  /** How far back the reconciler looks for the settlement event of a used authorization. */
  reconcileLookbackBlocks: number;
  /** Embedded mode: where the local chain's addresses and buyer keys are written. */
  devChainFile: string;
}

export function parsePayments(read: EnvReader, production: boolean, problems: string[]): PaymentsConfig {
  const { integer } = read;
  const given = {
    FACILITATOR_URL: read.raw("FACILITATOR_URL"),
    SETTLEMENT_RPC_URL: read.raw("SETTLEMENT_RPC_URL"),
    SETTLER_PRIVATE_KEY: read.raw("SETTLER_PRIVATE_KEY"),
    MARKETPLACE_PAY_TO: read.raw("MARKETPLACE_PAY_TO"),
  };
  const url = (name: "FACILITATOR_URL" | "SETTLEMENT_RPC_URL" | "CHAIN_RPC_URL"): string | null => {
    const raw = read.raw(name);
    if (raw === undefined || raw === "") return null;
    try {
      const parsed = new URL(raw);
      if (["http:", "https:"].includes(parsed.protocol)) return raw.replace(/\/+$/, "");
    } catch {
      // reported below
    }
    problems.push(`${name} must be an absolute http(s) URL, got "${raw}"`);
    return null;
  };
  const facilitatorUrl = url("FACILITATOR_URL");
  const settlementRpcUrl = url("SETTLEMENT_RPC_URL");
  const chainRpcUrl = url("CHAIN_RPC_URL") ?? settlementRpcUrl;
  const rawKey = given.SETTLER_PRIVATE_KEY;
  let settlerPrivateKey: Hex | null = null;
  if (rawKey) {
    if (/^0x[0-9a-fA-F]{64}$/.test(rawKey)) settlerPrivateKey = rawKey as Hex;
    else problems.push("SETTLER_PRIVATE_KEY must be 0x and 64 hex digits (the value is not shown)");
  }
  const facilitatorAuthHeaders = parseHeaders(read.raw("FACILITATOR_AUTH_HEADERS"), problems);

  const selfSettlement = Boolean(given.SETTLEMENT_RPC_URL || given.SETTLER_PRIVATE_KEY);
  let mode: FacilitatorMode = "embedded";
  if (given.FACILITATOR_URL && selfSettlement) {
    problems.push(
      "choose one facilitator: FACILITATOR_URL (remote) or SETTLEMENT_RPC_URL + SETTLER_PRIVATE_KEY (self-settlement), not both",
    );
  } else if (given.FACILITATOR_URL) {
    mode = "remote";
    if (production && facilitatorUrl && !facilitatorUrl.startsWith("https://"))
      problems.push("FACILITATOR_URL must be https in production");
  } else if (selfSettlement) {
    mode = "self";
    if (!given.SETTLEMENT_RPC_URL)
      problems.push("SETTLEMENT_RPC_URL is required with SETTLER_PRIVATE_KEY (self-settlement)");
    if (!given.SETTLER_PRIVATE_KEY)
      problems.push("SETTLER_PRIVATE_KEY is required with SETTLEMENT_RPC_URL (self-settlement)");
  } else if (production) {
    problems.push(
      "a facilitator is required in production (NODE_ENV=production): set FACILITATOR_URL (remote facilitator) or SETTLEMENT_RPC_URL and SETTLER_PRIVATE_KEY (self-settlement); the embedded local chain is for development only",
    );
  }
  if (mode !== "embedded" && !production && !given.MARKETPLACE_PAY_TO) {
    problems.push(
      "MARKETPLACE_PAY_TO is required with FACILITATOR_URL or SETTLEMENT_RPC_URL: it is the wallet listing fees are paid to",
    );
  }

  const reconcileIntervalMs = integer("RECONCILE_INTERVAL_SECONDS") * 1000;
  if (production && mode === "remote" && !chainRpcUrl) {
    problems.push(
      "CHAIN_RPC_URL is required in production with FACILITATOR_URL: a listing is activated only when the chain shows the fee transfer, and the reconciler reads it too",
    );
  }
  return {
    mode,
    facilitatorUrl,
    facilitatorAuthHeaders,
    facilitatorTimeoutMs: integer("FACILITATOR_TIMEOUT_MS"),
    settlementRpcUrl,
    settlerPrivateKey,
    chainRpcUrl,
    tokenName: read.text("TOKEN_NAME"),
    tokenVersion: read.text("TOKEN_VERSION"),
    reconcileIntervalMs,
    reconcileLookbackBlocks: integer("RECONCILE_LOOKBACK_BLOCKS"),
    devChainFile: read.text("DEV_CHAIN_FILE"),
  };
}

/** FACILITATOR_AUTH_HEADERS: a JSON object of header name -> value. Values are never echoed. */
function parseHeaders(raw: string | undefined, problems: string[]): Record<string, string> {
  if (raw === undefined || raw === "") return {};
  const problem =
    'FACILITATOR_AUTH_HEADERS must be a JSON object of header names to string values, e.g. {"Authorization":"Bearer <token>"}';
  try {
    const parsed = JSON.parse(raw) as unknown;
    const valid =
      typeof parsed === "object" &&
      parsed !== null &&
      !Array.isArray(parsed) &&
      Object.entries(parsed).every(
        ([name, value]) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) && typeof value === "string",
      );
    if (valid) return parsed as Record<string, string>;
  } catch {
    // reported below
  }
  problems.push(problem);
  return {};
}

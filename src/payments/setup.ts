// Builds what the server needs to take payments, from configuration: a remote facilitator, our own
// in-process facilitator settling over an RPC URL, or (development default) an embedded local chain.
import type { FacilitatorClient } from "@x402/core/http";
import type { SupportedResponse } from "@x402/core/types";
import { createPublicClient, getAddress, http, type Address, type Hex } from "viem";
import { marketFacts, type MarketFacts } from "../market/facts.js";
import { BASE_USDC, CHAIN_ID, NETWORK, USDC_DOMAIN } from "../constants.js";
import { startLocalChain, writeChainFile, type LocalChain } from "../chain/local-chain.js";
import { chainForRpc } from "../chain/viem-chain.js";
import { ConfigError, type Config, type FacilitatorMode } from "../config.js";
import type { Logger } from "../logger.js";
import { createChainReader, type ChainReader } from "./chain-reader.js";
import {
  fetchSupported,
  guardFacilitator,
  remoteFacilitator,
  supportsBaseExact,
  FacilitatorUnavailableError,
} from "./facilitator-client.js";
import { createInProcessFacilitator } from "./facilitator.js";
import { PaymentGate } from "./payment-gate.js";

/** Where fees are verified and settled, as /facilitator.json shows it (never a key or an RPC URL with credentials). */
export interface FacilitatorInfo {
  mode: FacilitatorMode;
  /** Remote mode: the facilitator's URL. */
  url: string | null;
  /** In-process modes: the account that broadcasts settlements. */
  settler: Address | null;
  /** Embedded mode only: the throwaway chain. */
  localChain: { rpcUrl: string; chainId: number; chainFile: string } | null;
}

export interface Payments {
  mode: FacilitatorMode;
  payTo: Address;
  asset: Address;
  tokenName: string;
  tokenVersion: string;
  gate: PaymentGate;
  facilitator: FacilitatorInfo;
  /** For the reconciler; null when no RPC URL is configured (remote mode). */
  chain: ChainReader | null;
  /** Rejects when the payment backend does not answer (the remote facilitator; the chain node): GET /readyz. */
  checkBackend?(): Promise<void>;
  close(): Promise<void>;
}

export interface AssembleOptions {
  facilitator: FacilitatorClient;
  info: FacilitatorInfo;
  payTo: string;
  asset: string;
  tokenName: string;
  tokenVersion: string;
  chainRpcUrl: string | null;
  timeoutMs: number;
  lookbackBlocks: number;
  logger: Logger;
  supported?: SupportedResponse;
  close?: () => Promise<void>;
}

/** Resolves when the node answers eth_blockNumber; rejects otherwise (its URL is never in the error). */
async function chainAnswers(rpcUrl: string, timeoutMs: number): Promise<void> {
  let response: Response;
  try {
    response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw Object.assign(new Error("the chain node did not answer"), {
      code: (error as { name?: string }).name === "TimeoutError" ? "timeout" : "unreachable",
    });
  }
  const answer = (await response.json().catch(() => null)) as { result?: unknown } | null;
  if (!response.ok || typeof answer?.result !== "string")
    throw Object.assign(new Error("the chain node answered without a block number"), { code: "bad_answer" });
}

/** Payments around any facilitator client (the modes below, and tests). */
export async function assemblePayments(options: AssembleOptions): Promise<Payments> {
  const { info, logger } = options;
  const label = info.url ?? `in-process (${info.mode})`;
  const facilitator = guardFacilitator(options.facilitator, {
    timeoutMs: options.timeoutMs,
    logger,
    label,
    supported: options.supported,
  });
  const token = {
    network: NETWORK,
    asset: getAddress(options.asset),
    tokenName: options.tokenName,
    tokenVersion: options.tokenVersion,
  } as const;
  return {
    mode: info.mode,
    payTo: getAddress(options.payTo),
    asset: token.asset,
    tokenName: token.tokenName,
    tokenVersion: token.tokenVersion,
    gate: await PaymentGate.create(facilitator, token),
    facilitator: info,
    chain: options.chainRpcUrl ? createChainReader(options.chainRpcUrl, options.lookbackBlocks) : null,
    checkBackend: async () => {
      if (info.mode === "remote") await fetchSupported(options.facilitator, options.timeoutMs);
      if (options.chainRpcUrl) await chainAnswers(options.chainRpcUrl, options.timeoutMs);
    },
    close: options.close ?? (async () => {}),
  };
}

export interface LocalChainPaymentOptions {
  logger: Logger;
  /** Default: the chain's settler account. Give each service instance its own key. */
  settlerPrivateKey?: Hex;
  timeoutMs?: number;
  chainFile?: string;
  close?: () => Promise<void>;
}

/** Payments on a local anvil chain, settled in-process: the embedded default, and the test bed. */
export async function localChainPayments(chain: LocalChain, options: LocalChainPaymentOptions): Promise<Payments> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const { client, settlerAddress } = createInProcessFacilitator({
    rpcUrl: chain.rpcUrl,
    settlerPrivateKey: options.settlerPrivateKey ?? chain.settler.privateKey,
    chain: chain.chain,
    confirmationTimeoutMs: timeoutMs,
    pollingIntervalMs: 50,
  });
  return assemblePayments({
    facilitator: client,
    info: {
      mode: "embedded",
      url: null,
      settler: settlerAddress,
      localChain: { rpcUrl: chain.rpcUrl, chainId: chain.chainId, chainFile: options.chainFile ?? "" },
    },
    payTo: chain.marketplacePayTo,
    asset: chain.asset,
    tokenName: USDC_DOMAIN.name,
    tokenVersion: USDC_DOMAIN.version,
    chainRpcUrl: chain.rpcUrl,
    timeoutMs,
    lookbackBlocks: 10_000,
    logger: options.logger,
    close: options.close,
  });
}

async function embeddedPayments(config: Config, logger: Logger): Promise<Payments> {
  const chain = await startLocalChain({ buyers: 3, fundUsdc: "1000" });
  try {
    const chainFile = config.payments.devChainFile;
    await writeChainFile(chainFile, chain);
    const ignored = [
      config.marketplacePayTo ? "MARKETPLACE_PAY_TO" : "",
      config.asset.toLowerCase() !== BASE_USDC.toLowerCase() ? "ASSET_ADDRESS" : "",
    ].filter(Boolean);
    logger.warn(
      {
        rpcUrl: chain.rpcUrl,
        chainId: chain.chainId,
        asset: chain.asset,
        marketplacePayTo: chain.marketplacePayTo,
        chainFile,
        ...(ignored.length && { ignored }),
      },
      `LOCAL CHAIN, NOT REAL MONEY: listing fees settle on a throwaway anvil chain (id ${chain.chainId}) with a test token; buyer keys are in ${chainFile}. Set FACILITATOR_URL or SETTLEMENT_RPC_URL + SETTLER_PRIVATE_KEY for real payments.`,
    );
    return await localChainPayments(chain, {
      logger,
      timeoutMs: config.payments.facilitatorTimeoutMs,
      chainFile,
      close: () => chain.stop(),
    });
  } catch (error) {
    await chain.stop();
    throw error;
  }
}

/** Refuses a node on another chain or a token address without a contract; warns when the node is unreachable. */
async function checkChain(name: string, rpcUrl: string, asset: string, logger: Logger): Promise<void> {
  const client = createPublicClient({
    chain: chainForRpc(rpcUrl),
    transport: http(rpcUrl, { timeout: 10_000, retryCount: 0 }),
  });
  let chainId: number;
  let code: Hex | undefined;
  try {
    [chainId, code] = await Promise.all([client.getChainId(), client.getCode({ address: getAddress(asset) })]);
  } catch (error) {
    logger.warn(
      { variable: name, err: (error as Error).message },
      "the chain node did not answer at start; payments answer 502/503 until it does",
    );
    return;
  }
  if (chainId !== CHAIN_ID)
    throw new ConfigError([
      `${name} serves chain id ${chainId}; this marketplace settles on ${NETWORK} (chain id ${CHAIN_ID})`,
    ]);
  if (!code || code === "0x")
    throw new ConfigError([`ASSET_ADDRESS ${asset} has no contract on the chain behind ${name}`]);
}

function payToOf(config: Config): string {
  if (!config.marketplacePayTo)
    throw new ConfigError([
      "MARKETPLACE_PAY_TO is required with a facilitator: it is the wallet listing fees are paid to",
    ]);
  return config.marketplacePayTo;
}

/** What a configured (remote or self-settling) facilitator is assembled with. */
function configuredTerms(
  config: Config,
): Omit<AssembleOptions, "facilitator" | "info" | "logger" | "supported" | "close"> {
  const { tokenName, tokenVersion, chainRpcUrl, facilitatorTimeoutMs, reconcileLookbackBlocks } = config.payments;
  return {
    payTo: payToOf(config),
    asset: config.asset,
    tokenName,
    tokenVersion,
    chainRpcUrl,
    timeoutMs: facilitatorTimeoutMs,
    lookbackBlocks: reconcileLookbackBlocks,
  };
}

async function remotePayments(config: Config, logger: Logger): Promise<Payments> {
  const { facilitatorUrl, facilitatorAuthHeaders, facilitatorTimeoutMs, chainRpcUrl } = config.payments;
  const url = facilitatorUrl!;
  const facilitator = remoteFacilitator({ url, authHeaders: facilitatorAuthHeaders, timeoutMs: facilitatorTimeoutMs });
  let supported: SupportedResponse | undefined;
  try {
    supported = await fetchSupported(facilitator, facilitatorTimeoutMs);
  } catch (error) {
    if (!(error instanceof FacilitatorUnavailableError)) throw error;
    logger.warn(
      { facilitator: url, err: error.message },
      "facilitator unreachable at start; payments answer 502/503 until it is back",
    );
  }
  if (supported && !supportsBaseExact(supported)) {
    const kinds =
      supported.kinds.map((kind) => `${kind.scheme}/${kind.network}/v${kind.x402Version}`).join(", ") || "nothing";
    throw new ConfigError([
      `the facilitator at FACILITATOR_URL (${url}) does not support exact payments on ${NETWORK} with x402 v2; it supports ${kinds}`,
    ]);
  }
  if (chainRpcUrl) await checkChain("CHAIN_RPC_URL", chainRpcUrl, config.asset, logger);
  else
    logger.warn(
      "no CHAIN_RPC_URL (development only): settlements are taken on the facilitator's word, and the reconciler is off",
    );
  return assemblePayments({
    facilitator,
    info: { mode: "remote", url, settler: null, localChain: null },
    ...configuredTerms(config),
    logger,
    supported: supported ?? undefined,
  });
}

async function selfSettlingPayments(config: Config, logger: Logger): Promise<Payments> {
  const { settlementRpcUrl, settlerPrivateKey, facilitatorTimeoutMs } = config.payments;
  await checkChain("SETTLEMENT_RPC_URL", settlementRpcUrl!, config.asset, logger);
  const { client, settlerAddress } = createInProcessFacilitator({
    rpcUrl: settlementRpcUrl!,
    settlerPrivateKey: settlerPrivateKey!,
    confirmationTimeoutMs: facilitatorTimeoutMs,
  });
  logger.info({ settler: settlerAddress }, "self-settlement: listing fees settle in-process with the settler key");
  return assemblePayments({
    facilitator: client,
    info: { mode: "self", url: null, settler: settlerAddress, localChain: null },
    ...configuredTerms(config),
    logger,
  });
}

/** Payments as configured; in embedded mode this starts (and close() stops) a local chain. */
export function setupPayments(config: Config, logger: Logger): Promise<Payments> {
  switch (config.payments.mode) {
    case "remote":
      return remotePayments(config, logger);
    case "self":
      return selfSettlingPayments(config, logger);
    case "embedded":
      return embeddedPayments(config, logger);
  }
}

/** The market's facts with the wallet, token and EIP-712 domain that payments actually use. */
export function marketFactsFor(config: Config, payments: Payments): MarketFacts {
  return marketFacts({ ...config, asset: payments.asset }, payments);
}

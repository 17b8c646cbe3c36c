// The x402 facilitator run inside the service: verifies payments and settles them on chain with
// the settler key over an RPC URL (the alternative is a remote HTTPFacilitatorClient).
//
// The SDK turns every error of the node into a payment verdict: an RPC answering 500 becomes
// "invalid signature", a broadcast whose answer was lost becomes "transaction failed". Neither is
// the chain's word. So every RPC request of a verify or settle is traced (AsyncLocalStorage), and a
// negative verdict reached while the node failed to answer is reported as the node being
// unavailable instead: before any broadcast, nothing was sent; after one, the settlement is
// unconfirmed and the reconciler resolves it from the chain.
import { AsyncLocalStorage } from "node:async_hooks";
import { x402Facilitator } from "@x402/core/facilitator";
import type { FacilitatorClient } from "@x402/core/http";
import type { Network, SupportedResponse } from "@x402/core/types";
import { toFacilitatorEvmSigner, type FacilitatorEvmSigner } from "@x402/evm";
import {
  concatHex,
  createWalletClient,
  encodeFunctionData,
  getContractError,
  http,
  publicActions,
  RpcRequestError,
  type Address,
  type BaseError,
  type Chain,
  type EncodeFunctionDataParameters,
  type Hex,
  type Transport,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ChainCheckedExactScheme } from "./chain-checked-scheme.js";
import { createSettlementSender, rememberingCodeReader } from "../chain/settlement-sender.js";
import { chainForRpc } from "../chain/viem-chain.js";
import { FacilitatorUnavailableError, unavailableKindOf } from "./facilitator-client.js";
import { CODE_MEMORY_LIMIT, CODE_MEMORY_MS, NETWORK } from "../constants.js";

export interface InProcessFacilitatorOptions {
  rpcUrl: string;
  /** Key of the account that broadcasts settlements and pays their gas. */
  settlerPrivateKey: Hex;
  /** CAIP-2 network served, default "eip155:8453". */
  network?: Network;
  /** viem chain for the wallet client; default: a plain chain for the network's id at rpcUrl. */
  chain?: Chain;
  /** Bound on each receipt wait; past it settle answers `settlement_pending` with the tx hash. */
  confirmationTimeoutMs?: number;
  /** How often a receipt wait polls (default 250 ms; viem's default for an unknown chain is 4 s). */
  pollingIntervalMs?: number;
}

export interface InProcessFacilitator {
  facilitator: x402Facilitator;
  /** The same facilitator behind the FacilitatorClient interface that x402ResourceServer takes. */
  client: FacilitatorClient;
  settlerAddress: Address;
}

/** What the node did during one verify or settle. */
interface RpcTrace {
  /** The first request the node did not answer (timeout, HTTP error, lost connection, internal error). */
  fault: unknown;
  /** eth_sendRawTransaction was requested: the settlement may be on its way whatever the answer. */
  broadcast: boolean;
}

const traces = new AsyncLocalStorage<RpcTrace>();

/** JSON-RPC error codes by which a node says it cannot answer now (internal error, overloaded, unavailable). */
const UNAVAILABLE_CODES = new Set([-32603, -32005, -32002]);

/**
 * The node failed to answer: no JSON-RPC answer at all (timeout, HTTP status, lost connection), or
 * one saying it cannot answer now. A JSON-RPC error otherwise (a revert, an unknown method) is an
 * answer. Any error of a broadcast leaves its fate unknown (the node may have it already).
 */
function isNodeFault(error: unknown, method: string): boolean {
  if (method === "eth_sendRawTransaction") return true;
  for (let e = error as { cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e instanceof RpcRequestError) return UNAVAILABLE_CODES.has(e.code);
  }
  return true;
}

function tracing(transport: Transport): Transport {
  return (options) => {
    const inner = transport(options);
    const request: typeof inner.request = async (args, requestOptions) => {
      const trace = traces.getStore();
      if (trace && args.method === "eth_sendRawTransaction") trace.broadcast = true;
      try {
        return await inner.request(args, requestOptions);
      } catch (error) {
        if (trace && !trace.fault && isNodeFault(error, args.method)) trace.fault = error;
        throw error;
      }
    };
    return { ...inner, request };
  };
}

export function createFacilitatorSigner(options: InProcessFacilitatorOptions): FacilitatorEvmSigner {
  const network = options.network ?? NETWORK;
  const chain = options.chain ?? chainForRpc(options.rpcUrl, Number(network.split(":")[1]));
  const account = privateKeyToAccount(options.settlerPrivateKey);
  const pollingIntervalMs = options.pollingIntervalMs ?? 250;
  const wallet = createWalletClient({
    account,
    chain,
    // Concurrent requests of many settlements share one HTTP request (a JSON-RPC batch).
    transport: tracing(http(options.rpcUrl, { batch: true })),
    pollingInterval: pollingIntervalMs,
  }).extend(publicActions);
  const sender = createSettlementSender(wallet, pollingIntervalMs);
  const getCode = rememberingCodeReader(wallet, CODE_MEMORY_MS, CODE_MEMORY_LIMIT);
  return toFacilitatorEvmSigner(
    {
      address: account.address,
      getCode,
      readContract: (args) => wallet.readContract({ ...args, args: args.args ?? [] }),
      // The SDK (2.27) checks signatures through its own viem import, not this; an EOA's recovered locally.
      verifyTypedData: (args) =>
        wallet.verifyTypedData({ ...args, mode: "eoa" } as Parameters<typeof wallet.verifyTypedData>[0]),
      writeContract: async (args) => {
        const call = {
          abi: args.abi,
          functionName: args.functionName,
          args: args.args ?? [],
        } as EncodeFunctionDataParameters;
        const data = concatHex([encodeFunctionData(call), ...(args.dataSuffix ? [args.dataSuffix] : [])]);
        try {
          return await sender.sendTransaction({ to: args.address, data, gas: args.gas });
        } catch (error) {
          throw getContractError(
            error as BaseError,
            { ...call, address: args.address, sender: account.address } as Parameters<typeof getContractError>[1],
          );
        }
      },
      sendTransaction: (args) => sender.sendTransaction(args),
      waitForTransactionReceipt: (args) => sender.waitForTransactionReceipt(args),
    },
    { confirmationTimeoutMs: options.confirmationTimeoutMs },
  );
}

function traced<T>(work: (trace: RpcTrace) => Promise<T>): Promise<T> {
  const trace: RpcTrace = { fault: null, broadcast: false };
  return traces.run(trace, () => work(trace));
}

function nodeUnavailable(operation: "verify" | "settle", trace: RpcTrace): FacilitatorUnavailableError {
  const detail = trace.fault instanceof Error ? trace.fault.message : String(trace.fault);
  return new FacilitatorUnavailableError(
    operation,
    unavailableKindOf(trace.fault),
    `the chain node failed: ${detail}`,
    trace.broadcast ? "maybe" : "none",
  );
}

/**
 * Adapts an x402Facilitator to the FacilitatorClient interface (what HTTPFacilitatorClient
 * implements); a negative verdict reached while the node failed becomes FacilitatorUnavailableError.
 */
export function inProcessFacilitatorClient(facilitator: x402Facilitator): FacilitatorClient {
  return {
    verify: (payload, requirements) =>
      traced(async (trace) => {
        const result = await facilitator.verify(payload, requirements);
        if (!result.isValid && trace.fault) throw nodeUnavailable("verify", trace);
        return result;
      }),
    settle: (payload, requirements) =>
      traced(async (trace) => {
        const result = await facilitator.settle(payload, requirements);
        if (!result.success && result.errorReason !== "settlement_pending" && trace.fault)
          throw nodeUnavailable("settle", trace);
        return result;
      }),
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}

export function createInProcessFacilitator(options: InProcessFacilitatorOptions): InProcessFacilitator {
  const signer = createFacilitatorSigner(options);
  const facilitator = new x402Facilitator().register(options.network ?? NETWORK, new ChainCheckedExactScheme(signer));
  return { facilitator, client: inProcessFacilitatorClient(facilitator), settlerAddress: signer.getAddresses()[0]! };
}

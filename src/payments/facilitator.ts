// The x402 facilitator run inside the service: verifies payments and settles them on chain with
// the settler key over an RPC URL (the alternative is a remote HTTPFacilitatorClient).
import { x402Facilitator } from "@x402/core/facilitator";
import type { FacilitatorClient } from "@x402/core/http";
import type { Network, SupportedResponse } from "@x402/core/types";
import { toFacilitatorEvmSigner, type FacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { createWalletClient, http, publicActions, type Address, type Chain, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createPendingNonceManager } from "../chain/nonce-manager.js";
import { chainForRpc } from "../chain/viem-chain.js";

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

/**
 * Serializes broadcasts (not receipt waits). viem takes the nonce before estimating gas, so a
 * settlement that reverts in estimation (a replay, a drained balance) leaves its nonce unused; if
 * another send took the next nonce meanwhile, that transaction waits behind the gap and is never
 * mined. One send at a time lets the nonce manager hand the unused nonce back first.
 */
function oneAtATime(): <T>(send: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (send) => {
    const result = queue.then(send, send);
    queue = result.catch(() => undefined);
    return result;
  };
}

export function createFacilitatorSigner(options: InProcessFacilitatorOptions): FacilitatorEvmSigner {
  const network = options.network ?? "eip155:8453";
  const chain = options.chain ?? chainForRpc(options.rpcUrl, Number(network.split(":")[1]));
  // One nonce manager per signer, so that concurrent settlements get consecutive nonces.
  const account = privateKeyToAccount(options.settlerPrivateKey, { nonceManager: createPendingNonceManager() });
  const wallet = createWalletClient({
    account,
    chain,
    transport: http(options.rpcUrl),
    pollingInterval: options.pollingIntervalMs ?? 250,
  }).extend(publicActions);
  const inTurn = oneAtATime();
  return toFacilitatorEvmSigner(
    {
      address: account.address,
      getCode: (args) => wallet.getCode(args),
      readContract: (args) => wallet.readContract({ ...args, args: args.args ?? [] }),
      verifyTypedData: (args) => wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0]),
      writeContract: (args) =>
        inTurn(() => wallet.writeContract({ ...args, args: args.args } as Parameters<typeof wallet.writeContract>[0])),
      sendTransaction: (args) => inTurn(() => wallet.sendTransaction(args)),
      waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
    },
    { confirmationTimeoutMs: options.confirmationTimeoutMs },
  );
}

/** Adapts an x402Facilitator to the FacilitatorClient interface (what HTTPFacilitatorClient implements). */
export function inProcessFacilitatorClient(facilitator: x402Facilitator): FacilitatorClient {
  return {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}

export function createInProcessFacilitator(options: InProcessFacilitatorOptions): InProcessFacilitator {
  const signer = createFacilitatorSigner(options);
  const facilitator = new x402Facilitator().register(options.network ?? "eip155:8453", new ExactEvmScheme(signer));
  return { facilitator, client: inProcessFacilitatorClient(facilitator), settlerAddress: signer.getAddresses()[0]! };
}

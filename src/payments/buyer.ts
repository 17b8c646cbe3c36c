// An x402 buyer (the SDK's own client) for development tools and tests.
import { x402Client } from "@x402/core/client";
import type { Network } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { NETWORK } from "../constants.js";

export interface BuyerOptions {
  /** Tokens the buyer may pay with besides the SDK's known defaults (e.g. TestUsdc). */
  allowAssets?: Array<{ asset: string; network?: Network; maxAmountPerPayment?: string }>;
}

export function createBuyerClient(privateKey: Hex, options: BuyerOptions = {}): x402Client {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: toClientEvmSigner(privateKeyToAccount(privateKey)) });
  if (options.allowAssets?.length) {
    client.setSpendControls({
      allowedAssets: options.allowAssets.map(({ asset, network, maxAmountPerPayment }) => ({
        asset,
        network: network ?? NETWORK,
        ...(maxAmountPerPayment !== undefined && { maxAmountPerPayment }),
      })),
    });
  }
  return client;
}

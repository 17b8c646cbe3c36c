// A seller that really sells, over plain HTTP on loopback: 402 with its terms, then (with a
// PAYMENT-SIGNATURE) verify and settle on the local chain with its own gas key, and answer 200.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import type { Address, Hex } from "viem";
import type { LocalChain } from "../../src/chain/local-chain.js";
import { createInProcessFacilitator } from "../../src/payments/facilitator.js";

export interface PaidSeller {
  url: string;
  /** Settlement transactions, in order. */
  sales: string[];
  close(): Promise<void>;
}

export async function startPaidSeller(
  chain: LocalChain,
  terms: { payTo: Address; priceAtomic: string; gasKey: Hex },
): Promise<PaidSeller> {
  const accepted: PaymentRequirements = {
    scheme: "exact",
    network: "eip155:8453",
    amount: terms.priceAtomic,
    asset: chain.asset,
    payTo: terms.payTo,
    maxTimeoutSeconds: 300,
    extra: { name: "USD Coin", version: "2" },
  };
  const { facilitator } = createInProcessFacilitator({
    rpcUrl: chain.rpcUrl,
    settlerPrivateKey: terms.gasKey,
    pollingIntervalMs: 50,
  });
  const sales: string[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    const signature = req.headers["payment-signature"];
    if (typeof signature !== "string") {
      const challenge: PaymentRequired = {
        x402Version: 2,
        error: "payment_required",
        resource: {
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${req.url}`,
          description: "a paid answer",
          mimeType: "application/json",
        },
        accepts: [accepted],
      };
      res
        .writeHead(402, {
          "content-type": "application/json",
          "PAYMENT-REQUIRED": encodePaymentRequiredHeader(challenge),
        })
        .end("{}");
      return;
    }
    void (async () => {
      const payload = decodePaymentSignatureHeader(signature);
      const verified = await facilitator.verify(payload, accepted);
      const settled = verified.isValid ? await facilitator.settle(payload, accepted) : null;
      if (!settled?.success) {
        res
          .writeHead(402, { "content-type": "application/json" })
          .end(JSON.stringify({ error: settled?.errorReason ?? verified.invalidReason }));
        return;
      }
      sales.push(settled.transaction);
      res
        .writeHead(200, {
          "content-type": "application/json",
          "PAYMENT-RESPONSE": encodePaymentResponseHeader(settled),
        })
        .end('{"ok":true}');
    })().catch((error: Error) => res.writeHead(500).end(error.message));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sales,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

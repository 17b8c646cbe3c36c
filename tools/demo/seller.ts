// The demo seller: a tiny x402 endpoint on https://127.0.0.1 (self-signed, tools/demo/tls) asking
// its price, paid to its own wallet. Given a settler key it also sells: it verifies and settles a
// PAYMENT-SIGNATURE on the chain itself (the SDK's facilitator, in-process) and answers 200.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import type { Address, Hex } from "viem";
import { createInProcessFacilitator } from "../../src/payments/facilitator.js";

/** The certificate buyers must trust (NODE_EXTRA_CA_CERTS) to call the seller. */
export const DEMO_SELLER_CERTIFICATE = new URL("tls/localhost.crt", import.meta.url);
const TLS = {
  key: readFileSync(new URL("tls/localhost.key", import.meta.url)),
  cert: readFileSync(DEMO_SELLER_CERTIFICATE),
};

export interface DemoSellerOptions {
  asset: Address;
  payTo: Address;
  priceAtomic: string;
  description: string;
  /** Settle on this chain with this key (it pays the gas); without it the seller only asks. */
  settle?: { rpcUrl: string; settlerKey: Hex };
  /** The answer a paid request gets. */
  answer?: (path: string) => unknown;
}

export interface DemoSeller {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The terms it asks and settles against (live: a test may change them to play a dishonest seller). */
  requirement: PaymentRequirements;
  /** Settlement transactions, in order. */
  sales: string[];
  close(): Promise<void>;
}

export async function startDemoSeller(options: DemoSellerOptions): Promise<DemoSeller> {
  const accepted: PaymentRequirements = {
    scheme: "exact",
    network: "eip155:8453",
    amount: options.priceAtomic,
    asset: options.asset,
    payTo: options.payTo,
    maxTimeoutSeconds: 300,
    extra: { name: "USD Coin", version: "2" },
  };
  const facilitator = options.settle
    ? createInProcessFacilitator({
        rpcUrl: options.settle.rpcUrl,
        settlerPrivateKey: options.settle.settlerKey,
        pollingIntervalMs: 50,
      }).facilitator
    : null;
  const sales: string[] = [];
  const server: Server = createServer(TLS, (req, res) => {
    req.resume();
    const signature = req.headers["payment-signature"];
    if (typeof signature !== "string" || !facilitator) {
      const challenge: PaymentRequired = {
        x402Version: 2,
        error: "payment_required",
        resource: {
          url: `https://127.0.0.1:${(server.address() as AddressInfo).port}${req.url}`,
          description: options.description,
          mimeType: "application/json",
        },
        accepts: [accepted],
      };
      res.writeHead(402, {
        "content-type": "application/json",
        "PAYMENT-REQUIRED": encodePaymentRequiredHeader(challenge),
      });
      res.end("{}");
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
      const answer = options.answer?.(req.url ?? "/") ?? { ok: true };
      res
        .writeHead(200, {
          "content-type": "application/json",
          "PAYMENT-RESPONSE": encodePaymentResponseHeader(settled),
        })
        .end(JSON.stringify(answer));
    })().catch((error: Error) => res.writeHead(500).end(error.message));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requirement: accepted,
    sales,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

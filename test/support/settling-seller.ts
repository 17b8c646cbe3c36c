// A seller that really sells: https on loopback, 402 with its challenge when unpaid, and with a
// PAYMENT-SIGNATURE it verifies and settles the payment on the local chain (its own facilitator and
// settler key) before answering 200 with PAYMENT-RESPONSE.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequirements } from "@x402/core/types";
import type { Hex } from "viem";
import type { LocalChain } from "../../src/chain/local-chain.js";
import { createInProcessFacilitator } from "../../src/payments/facilitator.js";
import { challenge, challengeAnswer, requirement } from "./sellers.js";

export const SELLER_CERTIFICATE = "tools/demo/tls/localhost.crt";
const TLS = { key: readFileSync("tools/demo/tls/localhost.key"), cert: readFileSync(SELLER_CERTIFICATE) };

export interface SettlingSeller {
  url: string;
  requirement: PaymentRequirements;
  /** Settlement transactions, in order. */
  sales: string[];
  close(): Promise<void>;
}

export async function startSettlingSeller(chain: LocalChain, options: { payTo: string; amount: string; settlerKey: Hex; answer: unknown }): Promise<SettlingSeller> {
  const { facilitator } = createInProcessFacilitator({ rpcUrl: chain.rpcUrl, settlerPrivateKey: options.settlerKey, chain: chain.chain, pollingIntervalMs: 50 });
  const accepted = requirement({ payTo: options.payTo, amount: options.amount, asset: chain.asset });
  const sales: string[] = [];
  const server: Server = createServer(TLS, (req, res) => {
    req.resume();
    const signature = req.headers["payment-signature"];
    if (typeof signature !== "string") {
      const { status, headers, body } = challengeAnswer(challenge([accepted], `https://127.0.0.1${req.url}`));
      res.writeHead(status, headers).end(body);
      return;
    }
    void (async () => {
      const payload = decodePaymentSignatureHeader(signature);
      const verified = await facilitator.verify(payload, accepted);
      const settled = verified.isValid ? await facilitator.settle(payload, accepted) : null;
      if (!settled?.success) {
        res.writeHead(402, { "content-type": "application/json" }).end(JSON.stringify({ error: settled?.errorReason ?? verified.invalidReason }));
        return;
      }
      sales.push(settled.transaction);
      res.writeHead(200, { "content-type": "application/json", "PAYMENT-RESPONSE": encodePaymentResponseHeader(settled) }).end(JSON.stringify(options.answer));
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

// Seller endpoints on loopback for the probe: https with the repository's self-signed localhost
// certificate (tools/demo/tls), or plain http.
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";

const TLS = {
  key: readFileSync(new URL("../../tools/demo/tls/localhost.key", import.meta.url)),
  cert: readFileSync(new URL("../../tools/demo/tls/localhost.crt", import.meta.url)),
};

export interface SellerAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
}

export interface Seller {
  /** Base URL, e.g. https://127.0.0.1:12345 */
  url: string;
  /** Requests received, as "METHOD /path". */
  requests: string[];
  /** May act before answering (a hostile seller mines a transaction while it is probed). */
  answer: (request: IncomingMessage) => SellerAnswer | Promise<SellerAnswer>;
  close(): Promise<void>;
}

export async function startSeller(answer: Seller["answer"], options: { https?: boolean } = {}): Promise<Seller> {
  const requests: string[] = [];
  const seller = { requests, answer } as Seller;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    const { status, headers = {}, body = "", delayMs = 0 } = await seller.answer(req);
    setTimeout(() => {
      if (res.destroyed) return;
      res.writeHead(status, headers);
      res.end(body);
    }, delayMs);
  };
  const https = options.https ?? true;
  const server: Server = https ? createHttpsServer(TLS, handle) : createHttpServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  seller.url = `${https ? "https" : "http"}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  seller.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return seller;
}

/**
 * A hostile seller's answer: the first time it is probed it runs `act` (mines a transaction, say),
 * then it answers as `answer` does. `result()` is what `act` returned, undefined until it ran.
 */
export function actingOnceWhenProbed<T>(
  act: () => Promise<T>,
  answer: () => SellerAnswer,
): { answer: Seller["answer"]; result(): T | undefined } {
  let acted: { value: T } | undefined;
  return {
    answer: async () => {
      acted ??= { value: await act() };
      return answer();
    },
    result: () => acted?.value,
  };
}

export function requirement(
  overrides: Partial<PaymentRequirements> & Pick<PaymentRequirements, "payTo" | "amount" | "asset">,
): PaymentRequirements {
  return {
    scheme: "exact",
    network: "eip155:8453",
    maxTimeoutSeconds: 300,
    extra: { name: "USD Coin", version: "2" },
    ...overrides,
  };
}

export function challenge(accepts: PaymentRequirements[], url = "https://seller.test/x"): PaymentRequired {
  return {
    x402Version: 2,
    error: "Payment required",
    resource: { url, description: "test seller", mimeType: "application/json" },
    accepts,
  };
}

/** A 402 with the challenge in PAYMENT-REQUIRED (and `{}` as the body, as the SDK sends it). */
export function challengeAnswer(paymentRequired: PaymentRequired): SellerAnswer {
  return {
    status: 402,
    headers: { "content-type": "application/json", "PAYMENT-REQUIRED": encodePaymentRequiredHeader(paymentRequired) },
    body: "{}",
  };
}

/** The seller address the listing suites use: an anvil account, whose key nothing needs. */
export const SELLER_PAY_TO = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";

/** A valid listing body for `seller`'s /api/summarise at 0.03, paid to `sellerPayTo`, with overrides. */
export function summariseListing(
  seller: Pick<Seller, "url">,
  overrides: Record<string, unknown> = {},
  sellerPayTo: string = SELLER_PAY_TO,
) {
  return {
    resource: `${seller.url}/api/summarise`,
    priceUsdc: "0.03",
    description: "Summarises any public web page into five bullet points.",
    sellerPayTo,
    ...overrides,
  };
}

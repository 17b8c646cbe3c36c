// Payments for tests: offline (no chain, the default of startTestServer), or on a local anvil chain;
// and buyers: the SDK's stock one, and hand-signed authorizations it would never produce.
import { randomBytes } from "node:crypto";
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader, type FacilitatorClient } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { authorizationTypes, type ExactEIP3009Payload } from "@x402/evm";
import { wrapFetchWithPayment } from "@x402/fetch";
import { createWalletClient, http, parseAbi, toHex, type Address, type Hex, type TransactionReceipt } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createBuyerClient } from "../../src/payments/buyer.js";
import { deriveAccounts, ANVIL_MNEMONIC, type LocalChain } from "../../src/chain/local-chain.js";
import type { Config } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { BASE_EXACT_SUPPORT, FacilitatorUnavailableError } from "../../src/payments/facilitator-client.js";
import { assemblePayments, localChainPayments, type Payments } from "../../src/payments/setup.js";

/** A facilitator that is never reachable: challenges work, verification answers 502. */
const unreachable: FacilitatorClient = {
  getSupported: async () => BASE_EXACT_SUPPORT,
  verify: async () => {
    throw new FacilitatorUnavailableError("verify", "unreachable", "offline test facilitator");
  },
  settle: async () => {
    throw new FacilitatorUnavailableError("settle", "unreachable", "offline test facilitator");
  },
};

/** Payments without a chain, paying anvil account 2 in the configured asset. */
export function offlinePayments(config: Config): Promise<Payments> {
  return assemblePayments({
    facilitator: unreachable,
    info: { mode: "remote", url: "http://offline.invalid", settler: null, localChain: null },
    payTo: config.marketplacePayTo ?? deriveAccounts(ANVIL_MNEMONIC, 3)[2]!.address,
    asset: config.asset,
    tokenName: "USD Coin",
    tokenVersion: "2",
    chainRpcUrl: null,
    timeoutMs: 1000,
    lookbackBlocks: 1,
    logger: createLogger("silent"),
  });
}

/** In-process settlement on a local chain; pass another settler key for a second instance. */
export function chainPayments(chain: LocalChain, settlerPrivateKey?: Hex): Promise<Payments> {
  return localChainPayments(chain, { logger: createLogger("silent"), settlerPrivateKey, timeoutMs: 10_000 });
}

/**
 * Self-settlement on a local chain through any facilitator client (one wrapped with faults, or
 * one whose settler talks to the chain through a proxy); the chain reader reads the chain directly.
 */
export function selfSettledPayments(
  chain: LocalChain,
  facilitator: FacilitatorClient,
  settler: Address,
): Promise<Payments> {
  return assemblePayments({
    facilitator,
    info: { mode: "self", url: null, settler, localChain: null },
    payTo: chain.marketplacePayTo,
    asset: chain.asset,
    tokenName: "USD Coin",
    tokenVersion: "2",
    chainRpcUrl: chain.rpcUrl,
    timeoutMs: 10_000,
    lookbackBlocks: 1000,
    logger: createLogger("silent"),
  });
}

/** The SDK's stock buyer (wrapFetchWithPayment) paying with `key`, allowed to pay the test token. */
export function payingFetch(chain: Pick<LocalChain, "asset">, key: Hex): typeof fetch {
  return wrapFetchWithPayment(fetch, createBuyerClient(key, { allowAssets: [{ asset: chain.asset }] }));
}

/** A PAYMENT-SIGNATURE header from the SDK's buyer for the first requirement of `paymentRequired`. */
export async function sdkPaymentHeader(chain: LocalChain, key: Hex, paymentRequired: PaymentRequired): Promise<string> {
  const client = createBuyerClient(key, {
    allowAssets: [{ asset: chain.asset, network: paymentRequired.accepts[0]!.network }],
  });
  return encodePaymentSignatureHeader(await client.createPaymentPayload(paymentRequired));
}

const TRANSFER_WITH_AUTHORIZATION = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
]);

/**
 * Sends a signed payload's EIP-3009 authorization on chain from `senderKey` (the payer itself, or a
 * third party as a facilitator would), and waits for its receipt.
 */
export async function submitAuthorization(
  chain: LocalChain,
  senderKey: Hex,
  payload: PaymentPayload,
): Promise<TransactionReceipt> {
  const { authorization, signature } = payload.payload as { authorization: Record<string, string>; signature: Hex };
  const sender = createWalletClient({
    account: privateKeyToAccount(senderKey),
    chain: chain.chain,
    transport: http(chain.rpcUrl),
  });
  const hash = await sender.writeContract({
    address: chain.asset,
    abi: TRANSFER_WITH_AUTHORIZATION,
    functionName: "transferWithAuthorization",
    args: [
      authorization.from as Address,
      authorization.to as Address,
      BigInt(authorization.value!),
      BigInt(authorization.validAfter!),
      BigInt(authorization.validBefore!),
      authorization.nonce as Hex,
      signature,
    ],
  });
  return chain.publicClient.waitForTransactionReceipt({ hash });
}

/** A payload signed by hand, for authorizations the SDK buyer would never produce. */
export async function handSignedPayload(
  key: Hex,
  requirements: PaymentRequirements,
  overrides: Partial<ExactEIP3009Payload["authorization"]> = {},
): Promise<PaymentPayload> {
  const account = privateKeyToAccount(key);
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: account.address,
    to: requirements.payTo as Address,
    value: requirements.amount,
    validAfter: String(now - 600),
    validBefore: String(now + 300),
    nonce: toHex(randomBytes(32)),
    ...overrides,
  };
  const signature = await account.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: requirements.asset as Address },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: {
      ...authorization,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
    },
  });
  return { x402Version: 2, accepted: requirements, payload: { authorization, signature } };
}

/** A hand-signed payment as a PAYMENT-SIGNATURE header, optionally tampered with after signing. */
export async function handSignedHeader(
  key: Hex,
  requirements: PaymentRequirements,
  overrides: Partial<ExactEIP3009Payload["authorization"]> = {},
  tamper: (payload: PaymentPayload) => PaymentPayload = (payload) => payload,
): Promise<string> {
  return encodePaymentSignatureHeader(tamper(await handSignedPayload(key, requirements, overrides)));
}

/** The dedupe key of a PAYMENT-SIGNATURE header. */
export function paymentKeyOf(header: string) {
  const payload = decodePaymentSignatureHeader(header);
  const { authorization } = payload.payload as unknown as ExactEIP3009Payload;
  return {
    network: payload.accepted.network,
    asset: payload.accepted.asset,
    payer: authorization.from,
    nonce: authorization.nonce,
  };
}

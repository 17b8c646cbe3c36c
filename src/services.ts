import type { components } from "../generated/openapi.js";
import type { CanonicalOperationId } from "../generated/operations.js";
import type { CatalogFreshness } from "./catalog/freshness.js";
import type { Config } from "./config.js";
import type { ContractHandler, ContractHandlerMap } from "./contract/typed-handlers.js";
import type { Logger } from "./logger.js";
import type { MarketFacts } from "./market/facts.js";
import type { Payments } from "./payments/setup.js";
import type { SellerProbe } from "./probe/seller-probe.js";
import type { ListingStore } from "./storage/listing-store.js";
import type { PaymentIdempotencyStore } from "./storage/payment-idempotency-store.js";
import type { OwnerStore } from "./storage/owner-store.js";
import type { Health } from "./health/health.js";
import type { UsageService } from "./usage/service.js";

/** Everything a handler may use besides its input. */
export interface Services {
  config: Config;
  logger: Logger;
  /** The compiled contract, as served at /openapi.json. */
  contract: { document: Record<string, unknown>; bytes: Buffer };
  store: ListingStore;
  /** The owner's self-service writes (src/storage/owner-store.ts). */
  owners: OwnerStore;
  /** Fee, wallet, chain and token: the one source every document reads. */
  market: MarketFacts;
  /** Whether rendered catalog documents are still current. */
  freshness: CatalogFreshness;
  /** Listing-fee and demo payments: the x402 gate, the facilitator, the chain. */
  payments: Payments;
  /** The SSRF-safe seller probe, with its per-instance rate limits. */
  probe: SellerProbe;
  /** Listing health: its store (reads, the listing-time sample) and the re-prober (src/health/). */
  health: Health;
  /** Payment identifiers of POST /listings and their stored answers (src/listing/payment-idempotency.ts). */
  idempotency: PaymentIdempotencyStore;
  /** Sales counted from the chain: the indexer, its store and the listing document's reads (src/usage/). */
  usage: UsageService;
  now(): Date;
  /** Whether this instance can take requests (GET /readyz): src/readiness.ts. */
  readiness(): Promise<components["schemas"]["Readiness"]>;
}

/** A handler of operation O: its validated input and the services. */
export type Handler<O extends CanonicalOperationId> = ContractHandler<O, Services>;

/** Every canonical operation's handler. */
export type HandlerMap = ContractHandlerMap<Services>;

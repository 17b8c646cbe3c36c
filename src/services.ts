// What each area of the contract may use besides its input: one typed context per area, built
// once at the composition root (src/server.ts). An area sees only the parts it needs, so a
// handler cannot reach into another area's stores, and what an area depends on is read here.
import type { components } from "../generated/openapi.js";
import type { Area, AreaOperationId, CanonicalOperationId } from "../generated/operations.js";
import type { Config } from "./config.js";
import type { ContractHandler, ContractHandlerMap } from "./contract/typed-handlers.js";
import type { DocumentContext } from "./documents/context.js";
import type { Health } from "./health/health.js";
import type { Logger } from "./logger.js";
import type { McpServices } from "./mcp/context.js";
import type { Payments } from "./payments/setup.js";
import type { SellerProbe } from "./probe/seller-probe.js";
import type { CatalogQueryContext } from "./queries/catalog.js";
import type { ListingHistorySources } from "./queries/listing-document.js";
import type { ListingStore } from "./storage/listing/listing-store.js";
import type { OwnerStore } from "./storage/listing/owner-store.js";
import type { PaymentIdempotencyStore } from "./storage/listing/payment-idempotency-store.js";
import type { UsageService } from "./usage/service.js";
import type { Limit } from "./probe/rate-limiter.js";
import type { WorkPool } from "./workers/pool.js";
import type { WebhookSubscriptions } from "./webhooks/subscriptions.js";
import type { SnapshotSigner } from "./market/snapshot-signing.js";
import type { SyncContext } from "./queries/sync.js";

/** The catalog's reads and the documents that render them (catalog, feeds), and what the x402 discovery manifests publish. */
export interface CatalogAreaContext extends DocumentContext, CatalogQueryContext {
  discovery: { signer: SnapshotSigner; peers: string[]; startedAt: Date };
}

/** The mirror API: the change log, the catalog, and the snapshot's signer. */
export interface SyncAreaContext extends CatalogAreaContext, SyncContext {}

/** A listing's page or document: the catalog, and its health and usage history. */
export interface ListingReadContext extends CatalogAreaContext, ListingHistorySources {}

/** The listings area: the paid flow, the dry run, the owner's routes, one listing's document. */
export interface ListingsAreaContext extends ListingReadContext {
  config: Config;
  logger: Logger;
  store: ListingStore;
  /** The owner's self-service writes (src/storage/listing/owner-store.ts). */
  owners: OwnerStore;
  /** Listing-fee payments: the x402 gate, the facilitator, the chain. */
  payments: Pick<Payments, "gate" | "chain" | "facilitator">;
  /** The SSRF-safe seller probe, with its per-client limits. */
  probe: SellerProbe;
  /** Listing health: its store and the probe samples taken outside the rounds (src/health/). */
  health: Health;
  /** Payment identifiers of POST /listings and their stored answers (src/listing/payment-idempotency.ts). */
  idempotency: PaymentIdempotencyStore;
  usage: UsageService;
  /** The CPU budget of requests anyone can send: the owner routes' per-client limit and the signature worker pool. */
  work: {
    ownerPerClient: Limit;
    paymentPerClient: Limit;
    webhookPerClient: Limit;
    syncPerClient: Limit;
    queryPerClient: Limit;
    pool: WorkPool;
  };
}

/** The agent documents and the compiled contract, served byte for byte at /openapi.json. */
export interface DocumentsAreaContext extends DocumentContext {
  contract: { document: Record<string, unknown>; bytes: Buffer };
}

/** The demo resources: paid through the same gate, answered from the seed. */
export interface DemoAreaContext extends DocumentContext {
  payments: Pick<Payments, "gate">;
  now(): Date;
}

/** Operators' routes: the metrics token and the readiness checks (src/readiness.ts). */
export interface OpsAreaContext {
  config: Config;
  readiness(): Promise<components["schemas"]["Readiness"]>;
}

/** Signed webhooks: subscriptions and their delivery logs (src/webhooks/). */
export interface WebhooksAreaContext {
  webhooks: WebhookSubscriptions;
}

/** Each area's context (areas: generated/operations.ts). */
export interface AreaContexts {
  listings: ListingsAreaContext;
  catalog: CatalogAreaContext;
  feeds: CatalogAreaContext;
  mcp: McpServices;
  a2a: McpServices;
  documents: DocumentsAreaContext;
  demo: DemoAreaContext;
  ops: OpsAreaContext;
  web: ListingReadContext;
  /** Static files browsers ask for by themselves (the favicon): nothing to read. */
  assets: Record<string, never>;
  webhooks: WebhooksAreaContext;
  sync: SyncAreaContext;
}

/** The area an operation belongs to. */
export type AreaOf<O extends CanonicalOperationId> = { [A in Area]: O extends AreaOperationId<A> ? A : never }[Area];

/** A handler of operation O: its validated input and its area's context. */
export type Handler<O extends CanonicalOperationId> = ContractHandler<O, AreaContexts[AreaOf<O>]>;

/** Every canonical operation's handler, as the router calls it (src/handlers/index.ts). */
export type HandlerMap = ContractHandlerMap<AreaContexts>;

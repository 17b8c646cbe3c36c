import type { operations } from "../../generated/openapi.js";
import type { CanonicalOperationId } from "../../generated/operations.js";

type Operation<O extends CanonicalOperationId> = operations[O];
type Responses<O extends CanonicalOperationId> = Operation<O>["responses"];

/** Statuses a `default` response stands for. */
export type ErrorStatus = 403 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 501 | 502 | 503 | 504;

type BodyOf<R> = R extends { content: infer C } ? C[keyof C] : R extends { content?: never } ? undefined : never;

/** Declared response headers, without the index signature openapi-typescript adds. */
type DeclaredHeaders<R> = R extends { headers: infer H }
  ? { [K in keyof H as string extends K ? never : K]: H[K] }
  : Record<never, never>;

/** Media types other than JSON must be named by the reply, so the adapter labels the body right. */
type MediaTypeOf<R> = R extends { content: infer C } ? Exclude<keyof C, "application/json"> : never;

type ReplyFor<Status, R> = {
  status: Status extends "default" ? ErrorStatus : Status;
  headers?: Record<string, string>;
  /** Freshness token of a pre-rendered catalog document: the fast path may serve it again while current. */
  cacheToken?: string;
  /** With cacheToken: the clock's time (ms) from which it may not be served again even while the token holds. */
  cacheUntil?: number;
} & (keyof DeclaredHeaders<R> extends never ? unknown : { headers: DeclaredHeaders<R> }) &
  (BodyOf<R> extends undefined ? { body?: undefined } : { body: BodyOf<R> | PreRendered }) &
  ([MediaTypeOf<R>] extends [never] ? unknown : { contentType: MediaTypeOf<R> });

/** A body already serialised (for example a cached document), sent as is. */
export interface PreRendered {
  readonly preRendered: Buffer;
  /** The same Buffer is sent again and again (a 402 challenge): the HTTP layer keeps its compressed forms with it. */
  readonly reused?: boolean;
}

/** What a handler of operation O may answer: only the statuses, headers and bodies of the contract. */
export type Reply<O extends CanonicalOperationId> = {
  [S in keyof Responses<O>]: ReplyFor<S, Responses<O>[S]>;
}[keyof Responses<O>];

type Params<O extends CanonicalOperationId> = Operation<O>["parameters"];
type BodyIn<O extends CanonicalOperationId> =
  Operation<O> extends { requestBody?: infer B }
    ? B extends { content: infer C }
      ? C[keyof C]
      : undefined
    : undefined;

/** The validated request a handler receives. */
export interface Input<O extends CanonicalOperationId> {
  /** The routed operationId (an alias or the canonical one). */
  operationId: string;
  path: string;
  /** Path parameters (`{id}` of `/listings/{id}`), validated against the contract. */
  params: Params<O> extends { path: infer P } ? NonNullable<P> : Record<string, never>;
  query: NonNullable<Params<O>["query"]>;
  /** Request headers, lower-cased names. */
  headers: Record<string, string | undefined>;
  /** The client's address (from X-Forwarded-For when TRUST_PROXY is on), for per-client limits. */
  clientIp: string;
  body: BodyIn<O> | undefined;
  /** The body text as received, for operations the contract marks `x-raw-body` (`body` is then undefined). */
  rawBody?: string;
}

/** A handler of operation O, given what it may use besides its input (S). */
export type ContractHandler<O extends CanonicalOperationId, S> = (
  input: Input<O>,
  services: S,
) => Promise<Reply<O>> | Reply<O>;

/** One handler per canonical operation: the compiler refuses a missing one. */
export type ContractHandlerMap<S> = { [O in CanonicalOperationId]: ContractHandler<O, S> };

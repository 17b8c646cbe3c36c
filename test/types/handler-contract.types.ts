/**
 * Type-level tests, checked by `tsc --noEmit` (part of `npm test`): each `@ts-expect-error`
 * fails the build if the line below it ever compiles, i.e. if the contract stops guarding it.
 */
import type { Handler, HandlerMap } from "../../src/services.js";
import { handlers } from "../../src/handlers/index.js";

// A complete map compiles.
export const complete: HandlerMap = { ...handlers };

// @ts-expect-error a missing operationId is refused
export const missing: HandlerMap = { ...handlers, getStatus: undefined };

// @ts-expect-error an operationId that is not in the contract is refused
export const unknown: HandlerMap = { ...handlers, getWeather: handlers.getStatus };

// @ts-expect-error a status the operation does not declare is refused
export const wrongStatus: Handler<"getListingExample"> = () => ({ status: 201, body: handlers as never });

// @ts-expect-error a body of the wrong shape is refused
export const wrongBody: Handler<"getFeeCard"> = () => ({ status: 200, body: { payTo: 42 } });

// @ts-expect-error a conditional read must send its ETag header
export const missingEtag: Handler<"getStatus"> = () => ({ status: 304, headers: {} });

// @ts-expect-error a 304 has no body
export const bodyOn304: Handler<"getStatus"> = () => ({ status: 304, headers: { ETag: 'W/"x"' }, body: {} });

// @ts-expect-error a text document must say its media type
export const missingType: Handler<"getLlmsText"> = () => ({ status: 200, body: "# x" });

// @ts-expect-error ... and the one its contract declares
export const wrongType: Handler<"getLlmsText"> = () => ({ status: 200, body: "# x", contentType: "text/html" });

export const textReply: Handler<"getAtomFeed"> = () => ({
  status: 200,
  headers: { ETag: 'W/"1"' },
  body: "<feed/>",
  contentType: "application/atom+xml",
});

// @ts-expect-error the redirect must carry its Location
export const redirectWithoutLocation: Handler<"redirectOpenApiYaml"> = () => ({ status: 307 });

export const redirect: Handler<"redirectOpenApiYaml"> = () => ({ status: 307, headers: { Location: "/openapi.json" } });

export const errorReply: Handler<"getStatus"> = () => ({
  status: 503,
  body: { error: "unavailable", message: "database down" },
});

// Validated query parameters arrive typed.
export const typedQuery: Handler<"listResources"> = (input) => {
  const limit: number | undefined = input.query.limit;
  // @ts-expect-error an undeclared query parameter does not exist
  const nope = input.query.colour;
  void [limit, nope];
  return { status: 501, body: { error: "not_implemented", message: "" } };
};

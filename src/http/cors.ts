/**
 * CORS is open: the catalog is public and browser agents pay with x402 headers. These are the
 * headers of a simple (non-preflight) response; the Koa app and the response cache both use them,
 * so a cached answer carries exactly the headers the app would have sent.
 */
export const CORS_ALLOW_HEADERS = [
  "Content-Type",
  "PAYMENT-SIGNATURE",
  "X-PAYMENT",
  "If-None-Match",
  "Mcp-Protocol-Version",
  "Mcp-Session-Id",
  "Last-Event-ID",
  "X-Request-Id",
];
export const CORS_EXPOSE_HEADERS = [
  "PAYMENT-REQUIRED",
  "PAYMENT-RESPONSE",
  "ETag",
  "Location",
  "Allow",
  "Mcp-Session-Id",
  "X-Request-Id",
];
export const CORS_ALLOW_METHODS = ["GET", "HEAD", "POST", "OPTIONS"];

export const CORS_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  Vary: "Origin",
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": CORS_EXPOSE_HEADERS.join(","),
};

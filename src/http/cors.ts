/**
 * CORS is open: the catalog is public and browser agents pay with x402 headers.
 */
export const CORS_ALLOW_HEADERS = ["Content-Type", "PAYMENT-SIGNATURE", "X-PAYMENT", "If-None-Match", "Mcp-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID"];
export const CORS_EXPOSE_HEADERS = ["PAYMENT-REQUIRED", "PAYMENT-RESPONSE", "ETag", "Location", "Allow", "Mcp-Session-Id"];
export const CORS_ALLOW_METHODS = ["GET", "HEAD", "POST", "OPTIONS"];

// A domain's OpenAPI document as a source of x402 resources: the operations that declare a 402
// answer (or an `x-402` / `x-payment-info` extension, as some x402 services annotate theirs), on a
// path without parameters, served from the domain's own origin. They are bare URLs: each one's 402
// is read to learn its terms, as a /.well-known/x402 manifest's are.

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export interface DeclaredOperation {
  url: string;
  method: "GET" | "POST";
  description?: string;
}

function declaresPayment(operation: Json): boolean {
  if ("x-402" in operation || "x-payment-info" in operation) return true;
  return isObject(operation.responses) && "402" in operation.responses;
}

/** The paid GET and POST operations of an OpenAPI document, as URLs on `origin` (other servers are not followed). */
export function paidOperations(document: unknown, origin: URL, limit: number): DeclaredOperation[] {
  if (!isObject(document) || !isObject(document.paths)) return [];
  const servers = Array.isArray(document.servers) ? document.servers.filter(isObject) : [];
  const base =
    servers.map((server) => (typeof server.url === "string" ? server.url : "")).find((url) => url !== "") ?? "/";
  let prefix: URL;
  try {
    prefix = new URL(base, origin);
  } catch {
    return [];
  }
  if (prefix.origin !== origin.origin) return [];
  const found: DeclaredOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (found.length >= limit) break;
    if (!isObject(item) || !path.startsWith("/") || path.includes("{")) continue;
    for (const method of ["get", "post"] as const) {
      const operation = item[method];
      if (!isObject(operation) || !declaresPayment(operation)) continue;
      const description =
        typeof operation.summary === "string"
          ? operation.summary
          : typeof operation.description === "string"
            ? operation.description
            : undefined;
      found.push({
        url: new URL(`${prefix.pathname.replace(/\/$/, "")}${path}`, origin).href,
        method: method.toUpperCase() as "GET" | "POST",
        ...(description && { description }),
      });
    }
  }
  return found.slice(0, limit);
}

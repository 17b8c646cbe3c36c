/** Why a toolkit operation stopped; the CLI maps each kind to its exit code. */
export type FailureKind = "request" | "refused" | "payment";

export class ToolkitError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    /** What the user can do about it. */
    readonly hint?: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ToolkitError";
  }
}

/** A fetch failure with its cause spelled out (TLS, refused connection), plus what to do. */
export function unreachable(url: string, error: unknown): ToolkitError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.message ?? (error as Error).message;
  const tls = /certificate|self[- ]signed|CERT|SSL|TLS/i.test(`${cause?.code ?? ""} ${reason}`);
  const hint = tls
    ? "the server's certificate is not trusted: for a seller with a private CA, set NODE_EXTRA_CA_CERTS=<its certificate file>"
    : "check the URL (--url or MARKETPLACE_URL) and that the server is running (npm start)";
  return new ToolkitError("request", `cannot reach ${url}: ${reason}`, hint);
}

// HTTP/1.1 over raw sockets, for requests fetch and node:http refuse to send (raw bytes and
// control characters in headers, invalid request targets, lying framing). Keep-alive connections,
// one per worker; a request marked `alone` gets a connection of its own, closed afterwards.
import { connect, type Socket } from "node:net";

export interface RawRequest {
  method: string;
  /** The request-target, sent byte for byte (latin1): percent-encode what should be encoded. */
  target: string;
  /** Sent as given, in order. A Host header is added unless one is listed. */
  headers?: Array<[string, string | Buffer]>;
  body?: Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of Content-Length. */
  chunked?: boolean;
  /** A connection of its own, closed after the answer (for requests that may upset the framing). */
  alone?: boolean;
  /** These bytes instead of a request built from the fields above (the fields still describe it). */
  raw?: Buffer;
}

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The status line and header lines as received. */
  head: string;
  body: Buffer;
}

export type Exchange = { response: RawResponse } | { failure: string };

const CRLF = "\r\n";

export function serialise(request: RawRequest, hostHeader: string): Buffer {
  if (request.raw) return request.raw;
  const headers = [...(request.headers ?? [])];
  const names = new Set(headers.map(([name]) => name.toLowerCase()));
  if (!names.has("host")) headers.unshift(["Host", hostHeader]);
  const body = request.body;
  let payload: Buffer = Buffer.alloc(0);
  if (body !== undefined) {
    if (request.chunked) {
      if (!names.has("transfer-encoding")) headers.push(["Transfer-Encoding", "chunked"]);
      const chunks: Buffer[] = [];
      for (let at = 0; at < body.length; at += 16_384) {
        const chunk = body.subarray(at, at + 16_384);
        chunks.push(Buffer.from(`${chunk.length.toString(16)}${CRLF}`, "latin1"), chunk, Buffer.from(CRLF, "latin1"));
      }
      chunks.push(Buffer.from(`0${CRLF}${CRLF}`, "latin1"));
      payload = Buffer.concat(chunks);
    } else {
      if (!names.has("content-length")) headers.push(["Content-Length", String(body.length)]);
      payload = body;
    }
  }
  const lines: Buffer[] = [Buffer.from(`${request.method} ${request.target} HTTP/1.1${CRLF}`, "latin1")];
  for (const [name, value] of headers) {
    lines.push(
      Buffer.from(`${name}: `, "latin1"),
      typeof value === "string" ? Buffer.from(value, "latin1") : value,
      Buffer.from(CRLF, "latin1"),
    );
  }
  lines.push(Buffer.from(CRLF, "latin1"), payload);
  return Buffer.concat(lines);
}

type Parsed = { response: RawResponse; used: number } | { incomplete: true } | { malformed: string };

/** One response from the start of `data`; `ended` when the peer closed (a body without length ends there). */
export function parseResponse(data: Buffer, isHead: boolean, ended: boolean): Parsed {
  let start = 0;
  for (;;) {
    const headEnd = data.indexOf("\r\n\r\n", start, "latin1");
    if (headEnd < 0) {
      if (!ended) return { incomplete: true };
      return {
        malformed:
          data.length === start
            ? "the connection closed without an answer"
            : `the connection closed inside a response head (${data.length - start} bytes)`,
      };
    }
    const head = data.subarray(start, headEnd).toString("latin1");
    const [statusLine = "", ...lines] = head.split(CRLF);
    const match = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(statusLine);
    if (!match) return { malformed: `not an HTTP/1.1 status line: ${JSON.stringify(statusLine.slice(0, 80))}` };
    const status = Number(match[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      if (colon <= 0) return { malformed: `not a header line: ${JSON.stringify(line.slice(0, 80))}` };
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    const bodyStart = headEnd + 4;
    // Interim answers (100 Continue) precede the real one.
    if (status >= 100 && status < 200) {
      start = bodyStart;
      continue;
    }
    const done = (body: Buffer, used: number): Parsed => ({ response: { status, headers, head, body }, used });
    if (isHead || status === 204 || status === 304) return done(Buffer.alloc(0), bodyStart);
    if (/\bchunked\b/i.test(headers["transfer-encoding"] ?? "")) return parseChunked(data, bodyStart, ended, done);
    const length = headers["content-length"];
    if (length !== undefined) {
      if (!/^\d+$/.test(length)) return { malformed: `Content-Length ${JSON.stringify(length)}` };
      const end = bodyStart + Number(length);
      if (data.length < end)
        return ended ? { malformed: "the connection closed inside a response body" } : { incomplete: true };
      return done(data.subarray(bodyStart, end), end);
    }
    return ended ? done(data.subarray(bodyStart), data.length) : { incomplete: true };
  }
}

function parseChunked(
  data: Buffer,
  from: number,
  ended: boolean,
  done: (body: Buffer, used: number) => Parsed,
): Parsed {
  const chunks: Buffer[] = [];
  let at = from;
  for (;;) {
    const lineEnd = data.indexOf(CRLF, at, "latin1");
    if (lineEnd < 0) return ended ? { malformed: "the connection closed inside a chunked body" } : { incomplete: true };
    const size = Number.parseInt(data.subarray(at, lineEnd).toString("latin1").split(";")[0]!, 16);
    if (!Number.isFinite(size)) return { malformed: "a chunk size that is not hexadecimal" };
    if (size === 0) {
      const trailerEnd = data.indexOf("\r\n\r\n", lineEnd, "latin1");
      if (trailerEnd < 0)
        return ended ? { malformed: "the connection closed inside a chunked trailer" } : { incomplete: true };
      return done(Buffer.concat(chunks), trailerEnd + 4);
    }
    const end = lineEnd + 2 + size;
    if (data.length < end + 2)
      return ended ? { malformed: "the connection closed inside a chunk" } : { incomplete: true };
    chunks.push(data.subarray(lineEnd + 2, end));
    at = end + 2;
  }
}

class Connection {
  private data = Buffer.alloc(0);
  private ended = false;
  private wake: (() => void) | null = null;

  private constructor(readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.data = Buffer.concat([this.data, chunk]);
      this.wake?.();
    });
    const end = () => {
      this.ended = true;
      this.wake?.();
    };
    socket.on("end", end);
    socket.on("close", end);
    // A reset after the server answered and closed is not a failure of the request.
    socket.on("error", end);
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      socket.setNoDelay(true);
      socket.once("connect", () => resolve(new Connection(socket)));
      socket.once("error", reject);
    });
  }

  get usable(): boolean {
    return !this.ended && !this.socket.destroyed;
  }

  /** Sends `bytes` and reads one response; `fresh` is false when nothing was received yet on a reused connection. */
  async exchange(bytes: Buffer, isHead: boolean, timeoutMs: number): Promise<Exchange & { received: boolean }> {
    this.socket.write(bytes, () => {});
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseResponse(this.data, isHead, this.ended);
      if ("response" in parsed) {
        this.data = this.data.subarray(parsed.used);
        return { response: parsed.response, received: true };
      }
      if ("malformed" in parsed) return { failure: parsed.malformed, received: this.data.length > 0 };
      const left = deadline - Date.now();
      if (left <= 0) return { failure: `no complete answer within ${timeoutMs} ms`, received: this.data.length > 0 };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A client of one server with `concurrency` keep-alive connections. */
export class RawClient {
  private readonly idle: Connection[] = [];
  sent = 0;

  constructor(
    private readonly port: number,
    private readonly timeoutMs = 20_000,
  ) {}

  private get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  async send(request: RawRequest): Promise<Exchange> {
    this.sent += 1;
    const bytes = serialise(request, this.host);
    const isHead = request.method.toUpperCase() === "HEAD";
    const reusable = request.alone ? undefined : this.takeIdle();
    const connection = reusable ?? (await Connection.open(this.port));
    let result = await connection.exchange(bytes, isHead, this.timeoutMs);
    if (reusable && "failure" in result && !result.received) {
      // The server closed the idle connection as this request went out: send it again on a new one.
      connection.close();
      const fresh = await Connection.open(this.port);
      result = await fresh.exchange(bytes, isHead, this.timeoutMs);
      return this.finish(fresh, request, result);
    }
    return this.finish(connection, request, result);
  }

  private finish(connection: Connection, request: RawRequest, result: Exchange): Exchange {
    const keep =
      !request.alone &&
      "response" in result &&
      connection.usable &&
      !/\bclose\b/i.test(result.response.headers.connection ?? "");
    if (keep) this.idle.push(connection);
    else connection.close();
    return result;
  }

  private takeIdle(): Connection | undefined {
    for (;;) {
      const connection = this.idle.pop();
      if (!connection || connection.usable) return connection;
      connection.close();
    }
  }

  close(): void {
    for (const connection of this.idle.splice(0)) connection.close();
  }
}

/** Runs `work` over `items` with at most `limit` at a time, in order of the items. */
export async function inBatches<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

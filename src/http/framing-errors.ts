// node:http refuses malformed framing itself (bad header bytes, conflicting lengths, an oversized
// header block, CONNECT) before any route or middleware sees it, with an empty, non-JSON answer.
// These hooks make those answers the same JSON errors every route gives, and close the connection:
// after broken framing nothing more on that socket can be trusted.
import type { IncomingMessage, Server } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

function rawJsonAnswer(status: number, error: string, message: string, extra: Record<string, string> = {}): string {
  const body = JSON.stringify({ error, message });
  const headers = {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
    "Access-Control-Allow-Origin": "*",
    ...extra,
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join("\r\n")}\r\n\r\n${body}`;
}

function answerAndClose(socket: Duplex, answer: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(answer);
}

function clientErrorAnswer(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return rawJsonAnswer(
        431,
        "headers_too_large",
        "The request line or headers are larger than the server accepts (16 KiB).",
      );
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return rawJsonAnswer(408, "request_timeout", "The request was not received in time.");
    default:
      return rawJsonAnswer(
        400,
        "malformed_request",
        "The request is not well-formed HTTP/1.1 (request line, headers or body framing).",
      );
  }
}

/** Answers HTTP/1.1 requests without Host (which node:http would refuse with an empty 400); true when it did. */
export function refuseMissingHost(
  req: IncomingMessage,
  res: { writeHead(status: number, headers: Record<string, string>): unknown; end(body: string): unknown },
): boolean {
  if (req.httpVersion !== "1.1" || req.headers.host !== undefined) return false;
  res.writeHead(400, { "content-type": "application/json; charset=utf-8", connection: "close" });
  res.end(JSON.stringify({ error: "host_required", message: "An HTTP/1.1 request must carry a Host header." }));
  return true;
}

/** Installs the JSON answers on a server created with `requireHostHeader: false`. */
export function answerFramingErrorsWithJson(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET") {
      socket.destroy();
      return;
    }
    answerAndClose(socket, clientErrorAnswer(error));
  });
  server.on("checkExpectation", (_req: IncomingMessage, res) => {
    res.writeHead(417, { "content-type": "application/json; charset=utf-8", connection: "close" });
    res.end(JSON.stringify({ error: "expectation_failed", message: "Only Expect: 100-continue is supported." }));
  });
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    answerAndClose(socket, rawJsonAnswer(405, "method_not_allowed", "CONNECT is not supported: this is not a proxy."));
  });
}

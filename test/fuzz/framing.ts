// Requests node:http itself answers (or must): malformed framing no route ever sees. Sent once,
// not per operation.
import type { FuzzCase } from "./cases.js";

/** `getPath` and `postPath` are any GET route and any route that reads a JSON body. */
export function framingCases(getPath: string, postPath: string): FuzzCase[] {
  const raw = (what: string, template: string): FuzzCase => {
    const text = template.replaceAll("{GET}", getPath).replaceAll("{POST}", postPath);
    return {
      operation: null,
      what,
      request: {
        method: "RAW",
        target: text.split("\r\n")[0]!.slice(0, 120),
        raw: Buffer.from(text, "latin1"),
        alone: true,
      },
    };
  };
  return [
    raw("control character in a header value", "GET {GET} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\u0001b\r\n\r\n"),
    raw("NUL in a header value", "GET {GET} HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: a\u0000b\r\n\r\n"),
    raw("header block over 16 KiB", `GET {GET} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ${"a".repeat(20_000)}\r\n\r\n`),
    raw("NUL in the request target", "GET {GET}\u0000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
    raw("space in the request target", "GET {GET}%20x x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
    raw("unknown method token", "FOO {GET} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
    raw("HTTP version 9.9", "GET {GET} HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n"),
    raw("HTTP/1.1 without Host", "GET {GET} HTTP/1.1\r\n\r\n"),
    raw("raw non-ASCII bytes in the path", "GET {GET}\u00c3\u00a9 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
    raw("raw non-ASCII byte in the query", "GET {GET}?query=\u00e9 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
    raw("request line over 16 KiB", `GET {GET}?query=${"%E2%82%AC".repeat(3414)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`),
    raw("LF line endings", "GET {GET} HTTP/1.1\nHost: 127.0.0.1\n\n"),
    raw(
      "conflicting Content-Length",
      "POST {POST} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    ),
    raw(
      "Content-Length and chunked",
      "POST {POST} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ),
    raw("negative Content-Length", "POST {POST} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n"),
    raw("Transfer-Encoding gzip only", "POST {POST} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n{}"),
    raw(
      "bad chunk size",
      "POST {POST} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    ),
    raw("obsolete line folding", "GET {GET} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\r\n  b\r\n\r\n"),
    raw("absolute-form target", "GET http://evil.example{GET} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
    raw("asterisk target", "OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
    raw("CONNECT", "CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n"),
    raw(
      "Upgrade to websocket",
      "GET {GET} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
    ),
    raw(
      "Expect 100-continue",
      "POST {POST} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n{}",
    ),
    raw(
      "Expect something else",
      "POST {POST} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 200-ok\r\n\r\n{}",
    ),
  ];
}

// A keep-alive client whose body is refused as too large, with a second request pipelined behind it
// on the same socket: it must get its 413 at once and then the second answer or a closed
// connection, never a stall until the server's timeouts (it used to take about 55 s).
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";

const LIMIT = 64 * 1024;
const DEADLINE_MS = 5_000;

interface Exchange {
  /** Everything the server sent. */
  text: string;
  ms: number;
  /** The server closed the connection (rather than the deadline ending the attempt). */
  closed: boolean;
}

/** Writes `frames` on one socket (a pause between them), reads until the server closes or `done(text)` holds. */
function exchange(
  server: TestServer,
  frames: string[],
  done: (text: string) => boolean,
  pauseMs = 0,
): Promise<Exchange> {
  const { hostname, port } = new URL(server.url);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      socket.destroy();
      resolve({ text, ms: Date.now() - started, closed });
    };
    const deadline = setTimeout(() => finish(false), DEADLINE_MS);
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (done(text)) finish(false);
    });
    socket.on("close", () => finish(true));
    // The server may close while the client is still sending the refused body: that is allowed.
    socket.on("error", () => undefined);
    void (async () => {
      for (const frame of frames) {
        if (socket.destroyed) return;
        socket.write(frame);
        if (pauseMs) await new Promise((wait) => setTimeout(wait, pauseMs));
      }
    })();
  });
}

const chunk = (data: string) => `${data.length.toString(16)}\r\n${data}\r\n`;
const chunkedHead =
  "POST /listings/validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
const pipelined = "GET /status.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

/** The statuses of the complete responses in `text` (each has a Content-Length). */
function completeResponses(text: string): number[] {
  const statuses: number[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) return statuses;
    const head = rest.slice(0, end);
    const length = Number(/^content-length: *(\d+)/im.exec(head)?.[1] ?? 0);
    if (rest.length < end + 4 + length) return statuses;
    statuses.push(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]));
    rest = rest.slice(end + 4 + length);
  }
}
const statusLines = completeResponses;
const answeredTwice = (text: string) => completeResponses(text).length >= 2;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ MAX_BODY_BYTES: String(LIMIT) });
});
afterAll(async () => {
  await server?.close();
});

function expectPrompt413(result: Exchange, label: string) {
  expect(result.ms, `${label}: answered within ${DEADLINE_MS} ms`).toBeLessThan(DEADLINE_MS);
  const statuses = statusLines(result.text);
  expect(statuses[0], label).toBe(413);
  expect(result.text, label).toContain('"error":"payload_too_large"');
  // Either the pipelined request was answered too, or the server said it would close and did.
  if (statuses.length >= 2) expect(statuses[1], label).toBe(200);
  else {
    expect(result.text.toLowerCase(), label).toContain("connection: close");
    expect(result.closed, label).toBe(true);
  }
}

describe("a body refused with 413 on a kept-alive connection", () => {
  const piece = "x".repeat(16 * 1024);

  it("a chunked body over the limit, written at once with a pipelined request behind it", async () => {
    const result = await exchange(
      server,
      [chunkedHead + chunk(piece.repeat(5)) + "0\r\n\r\n" + pipelined],
      answeredTwice,
    );
    expectPrompt413(result, "one write");
  });

  it("a chunked body over the limit, sent in many chunks, then a pipelined request", async () => {
    const result = await exchange(
      server,
      [chunkedHead, ...Array<string>(8).fill(chunk(piece)), "0\r\n\r\n" + pipelined],
      answeredTwice,
      20,
    );
    expectPrompt413(result, "many chunks");
  });

  it("a chunked body far over the limit (3 MiB), still being sent when refused", async () => {
    const result = await exchange(
      server,
      [chunkedHead, ...Array<string>(192).fill(chunk(piece)), "0\r\n\r\n" + pipelined],
      answeredTwice,
      1,
    );
    expectPrompt413(result, "3 MiB");
  });

  it("a Content-Length over the limit, then a pipelined request", async () => {
    const body = piece.repeat(5);
    const head = `POST /listings/validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const result = await exchange(server, [head, body + pipelined], answeredTwice, 5);
    expectPrompt413(result, "content-length");
  });

  it("keeps the connection alive after a body that was read in full, however bad", async () => {
    const body = '{"resource":1}';
    const head = `POST /listings/validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const result = await exchange(server, [head + body + pipelined], answeredTwice);
    expect(result.ms).toBeLessThan(DEADLINE_MS);
    expect(statusLines(result.text)).toEqual([400, 200]);
  });
});

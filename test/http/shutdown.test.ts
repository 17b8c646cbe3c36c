import { connect } from "node:net";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { startTestServer } from "../support/server.js";

describe("closing the server", () => {
  it("does not wait on a request that never completes: its connection is closed once the grace period ends", async () => {
    const server = await startTestServer({}, { shutdownGraceMs: 500 });
    const { port } = new URL(server.url);
    const socket = connect(Number(port), "127.0.0.1");
    await once(socket, "connect");
    // A request in flight whose client never sends the rest of its body (or, the same for the
    // server, never reads a large answer): without a deadline close() would wait for it forever.
    socket.write(
      'POST /listings/validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"resource":',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closedByServer = once(socket, "close");

    const started = Date.now();
    await server.close();
    const elapsed = Date.now() - started;
    await closedByServer;

    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(5_000);
  });
});

/**
 * A JSON-RPC proxy in front of a chain node that counts what passes through it: HTTP requests and
 * JSON-RPC calls by method (a batch counts once as a request and each call by its method). The
 * burst bench puts it between the service and anvil to show the RPC calls per listing.
 */
import { createServer, request as httpRequest, Agent } from "node:http";
import type { AddressInfo } from "node:net";

export interface RpcCounter {
  url: string;
  /** HTTP requests and calls by method since the last reset. */
  counts(): { httpRequests: number; calls: Map<string, number> };
  reset(): void;
  close(): Promise<void>;
}

export async function startRpcCounter(targetUrl: string): Promise<RpcCounter> {
  const target = new URL(targetUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let httpRequests = 0;
  let calls = new Map<string, number>();
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      httpRequests++;
      try {
        const parsed = JSON.parse(body.toString("utf8")) as { method?: string } | Array<{ method?: string }>;
        for (const call of Array.isArray(parsed) ? parsed : [parsed])
          calls.set(String(call.method), (calls.get(String(call.method)) ?? 0) + 1);
      } catch {
        calls.set("(unparsable)", (calls.get("(unparsable)") ?? 0) + 1);
      }
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": body.length },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, {
            "content-type": answer.headers["content-type"] ?? "application/json",
          });
          answer.pipe(outgoing);
        },
      );
      forward.on("error", () => outgoing.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ httpRequests, calls }),
    reset: () => {
      httpRequests = 0;
      calls = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

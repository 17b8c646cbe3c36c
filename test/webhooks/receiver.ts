// A subscriber's endpoint, as a real HTTP server: it verifies every delivery with the Standard
// Webhooks library (as a subscriber would), answers the verification challenge, and can be made
// to fail, redirect, hang or answer a huge body.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface Received {
  id: string;
  type: string;
  data: {
    id?: string;
    seq?: number;
    listingId?: string;
    type?: string;
    data?: Record<string, unknown>;
    challenge?: string;
  };
  /** Whether the library's verify accepted the signature. */
  verified: boolean;
  /** When it arrived (performance.now()). */
  at: number;
  /** The request's path and query (one receiver can stand for many endpoint URLs). */
  path: string;
}

export type Mode = "ok" | "down" | "redirect" | "hang" | "huge" | "no-echo";

export interface Receiver {
  url: string;
  received: Received[];
  /** Attempts of every kind, answered or not. */
  attempts: number;
  /** When each attempt arrived (performance.now()), answered or not. */
  arrivals: number[];
  mode: Mode;
  /** Wait this long before answering each request (a slow endpoint). */
  delayMs: number;
  secret: string | null;
  /** Deliveries (not the verification), in arrival order. */
  events(): Received[];
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: "",
    received: [],
    attempts: 0,
    arrivals: [],
    mode: "ok",
    delayMs: 0,
    secret: null,
    events: () => receiver.received.filter((entry) => entry.type !== "webhook.verification"),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((request, response) => {
    void (async () => {
      receiver.attempts++;
      const at = performance.now();
      receiver.arrivals.push(at);
      const text = await bodyOf(request);
      if (receiver.mode === "hang") return;
      if (receiver.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, receiver.delayMs));
      if (receiver.mode === "down") return void response.writeHead(503).end("maintenance");
      if (receiver.mode === "redirect")
        return void response.writeHead(302, { location: "http://169.254.169.254/latest/meta-data" }).end();
      if (receiver.mode === "huge") {
        response.writeHead(200, { "content-type": "text/plain" });
        const chunk = Buffer.alloc(1 << 20, 120);
        for (let i = 0; i < 16; i++) response.write(chunk);
        return void response.end();
      }
      let verified = false;
      try {
        if (receiver.secret) {
          new Webhook(receiver.secret).verify(text, {
            "webhook-id": String(request.headers["webhook-id"]),
            "webhook-timestamp": String(request.headers["webhook-timestamp"]),
            "webhook-signature": String(request.headers["webhook-signature"]),
          });
          verified = true;
        }
      } catch {
        verified = false;
      }
      const message = JSON.parse(text) as { type: string; data: Received["data"] };
      receiver.received.push({
        id: String(request.headers["webhook-id"]),
        type: message.type,
        data: message.data,
        verified,
        at,
        path: request.url ?? "",
      });
      if (message.type === "webhook.verification" && receiver.mode !== "no-echo") {
        return void response
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ challenge: message.data.challenge }));
      }
      response.writeHead(204).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

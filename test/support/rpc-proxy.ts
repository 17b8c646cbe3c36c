// A JSON-RPC proxy in front of the local chain that injects the faults a real node and network
// produce: HTTP errors, dropped connections, answers lost after the node acted, broadcasts the node
// accepted and then dropped, and slow answers.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { keccak256, type Hex } from "viem";

export type RpcFault =
  /** Answer this HTTP status without asking the node. */
  | { kind: "status"; status: number }
  /** Close the connection without asking the node. */
  | { kind: "drop" }
  /** Ask the node, then close the connection without passing its answer on. */
  | { kind: "lose-answer" }
  /** eth_sendRawTransaction: answer the transaction's hash as if accepted, but never pass it on. */
  | { kind: "swallow-broadcast" }
  /** Ask the node after a delay. */
  | { kind: "delay"; ms: number }
  /**
   * A batch of several eth_sendRawTransaction: the node refuses the first (a JSON-RPC error) and
   * takes the others. A request with fewer broadcasts passes untouched and leaves the fault pending.
   */
  | { kind: "refuse-first-of-broadcasts" };

interface Rule {
  method: string;
  fault: RpcFault;
  times: number;
}

export interface RpcProxy {
  url: string;
  /** JSON-RPC methods seen, in order. */
  methods: string[];
  /** Applies `fault` to the next `times` requests of `method`. */
  inject(method: string, fault: RpcFault, times?: number): void;
  /** Faults not used up yet. */
  pending(): number;
  clear(): void;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

export async function startRpcProxy(upstream: string): Promise<RpcProxy> {
  const rules: Rule[] = [];
  const methods: string[] = [];

  const take = (calls: { method: string }[]): RpcFault | null => {
    const broadcasts = calls.filter((call) => call.method === "eth_sendRawTransaction").length;
    for (const call of calls) {
      const rule = rules.find(
        (r) =>
          r.method === call.method && r.times > 0 && (r.fault.kind !== "refuse-first-of-broadcasts" || broadcasts > 1),
      );
      if (rule) {
        rule.times--;
        return rule.fault;
      }
    }
    return null;
  };

  const forward = async (body: string) => {
    const response = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body });
    return { status: response.status, text: await response.text() };
  };

  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = null;
    }
    const calls = (Array.isArray(parsed) ? parsed : [parsed]).filter(Boolean) as {
      id: unknown;
      method: string;
      params?: unknown[];
    }[];
    methods.push(...calls.map((call) => call.method));
    const fault = take(calls);
    const reply = (status: number, text: string) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(text);
    };
    try {
      switch (fault?.kind) {
        case "status":
          return reply(fault.status, JSON.stringify({ error: "injected fault" }));
        case "drop":
          return request.socket.destroy();
        case "lose-answer":
          await forward(body);
          return request.socket.destroy();
        case "swallow-broadcast": {
          const call = calls.find((c) => c.method === "eth_sendRawTransaction")!;
          const swallowed = { jsonrpc: "2.0", id: call.id, result: keccak256(call.params![0] as Hex) };
          if (!Array.isArray(parsed)) return reply(200, JSON.stringify(swallowed));
          // A batch (a client batching JSON-RPC requests): the others are answered by the node.
          const others = calls.filter((c) => c !== call);
          const answered = others.length ? (JSON.parse((await forward(JSON.stringify(others))).text) as unknown[]) : [];
          return reply(200, JSON.stringify([...answered, swallowed]));
        }
        case "refuse-first-of-broadcasts": {
          const refused = calls.find((c) => c.method === "eth_sendRawTransaction")!;
          const others = calls.filter((c) => c !== refused);
          const answered = JSON.parse((await forward(JSON.stringify(others))).text) as unknown[];
          const refusal = { jsonrpc: "2.0", id: refused.id, error: { code: -32003, message: "transaction rejected" } };
          return reply(200, JSON.stringify([...answered, refusal]));
        }
        case "delay":
          await new Promise((resolve) => setTimeout(resolve, fault.ms));
          break;
        case undefined:
          break;
      }
      const answer = await forward(body);
      reply(answer.status, answer.text);
    } catch {
      request.socket.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    methods,
    inject: (method, fault, times = 1) => void rules.push({ method, fault, times }),
    pending: () => rules.reduce((sum, rule) => sum + rule.times, 0),
    clear: () => void rules.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// Requests sent from a chosen loopback address (127.0.0.2, 127.0.0.3, ...): each is another client
// to the per-client limits, so cases sharing one server do not share a budget.
import { request } from "node:http";
import { connect, type Socket } from "node:net";

export interface AddressedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export function fetchFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<AddressedResponse> {
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      { method: init.method ?? "GET", headers: init.headers, localAddress, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text,
            json: <T>() => JSON.parse(text) as T,
          });
        });
      },
    );
    sent.on("error", reject);
    sent.end(init.body);
  });
}

/** A client at `localAddress` of the server at `baseUrl`. */
export function clientAt(baseUrl: string, localAddress: string) {
  return (path: string, init?: Parameters<typeof fetchFrom>[2]) => fetchFrom(localAddress, `${baseUrl}${path}`, init);
}

/**
 * GETs sent at the same instant: every connection is opened first (each from its own address),
 * then every request is written in one go, so the server reads them all in one turn of its loop,
 * as it does under a flood from other processes.
 */
export async function simultaneousGets(
  baseUrl: string,
  requests: Array<{ path: string; from: string }>,
): Promise<AddressedResponse[]> {
  const { hostname, port } = new URL(baseUrl);
  const sockets = await Promise.all(
    requests.map(
      ({ from }) =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host: hostname, port: Number(port), localAddress: from }, () => resolve(socket));
          socket.on("error", reject);
        }),
    ),
  );
  const answers = sockets.map(
    (socket) =>
      new Promise<AddressedResponse>((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on("data", (chunk: Buffer) => chunks.push(chunk));
        socket.on("error", reject);
        socket.on("end", () => resolve(parsedResponse(Buffer.concat(chunks).toString("utf8"))));
      }),
  );
  requests.forEach(({ path }, i) =>
    sockets[i]!.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`),
  );
  return Promise.all(answers);
}

/** An HTTP/1.1 answer with a Content-Length (what the service sends for JSON). */
function parsedResponse(raw: string): AddressedResponse {
  const [head = "", ...rest] = raw.split("\r\n\r\n");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const text = rest.join("\r\n\r\n");
  return { status: Number(statusLine.split(" ")[1]), headers, text, json: <T>() => JSON.parse(text) as T };
}

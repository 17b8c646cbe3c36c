// Loopback sellers for the health suites: plain http on any loopback address (127.0.0.x are
// distinct hosts to the re-prober's politeness), an answer the test can switch, and a record of
// every request with its start and end times and how many were in flight on that host.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { challenge, challengeAnswer, requirement, SELLER_PAY_TO, type SellerAnswer } from "../support/sellers.js";

export interface Visit {
  path: string;
  start: number;
  end: number;
  /** Requests in flight on this seller's host when this one arrived (itself included). */
  inFlightOnHost: number;
}

export interface HealthSeller {
  url: string;
  host: string;
  visits: Visit[];
  answer: (request: IncomingMessage) => SellerAnswer;
  close(): Promise<void>;
}

const inFlightByHost = new Map<string, number>();

/** Plain http by default; `https` uses the repository's self-signed localhost certificate (paid listings need https). */
export async function startHealthSeller(
  answer: HealthSeller["answer"],
  host = "127.0.0.1",
  options: { https?: boolean } = {},
): Promise<HealthSeller> {
  const seller = { visits: [] as Visit[], answer, host } as HealthSeller;
  const listener: RequestListener = (req, res) => {
    const inFlight = (inFlightByHost.get(host) ?? 0) + 1;
    inFlightByHost.set(host, inFlight);
    const visit: Visit = { path: req.url ?? "", start: performance.now(), end: 0, inFlightOnHost: inFlight };
    seller.visits.push(visit);
    req.resume();
    const { status, headers = {}, body = "", delayMs = 0 } = seller.answer(req);
    const finish = () => {
      if (visit.end === 0) {
        visit.end = performance.now();
        inFlightByHost.set(host, (inFlightByHost.get(host) ?? 1) - 1);
      }
    };
    res.on("close", finish);
    setTimeout(() => {
      if (res.destroyed) return;
      res.writeHead(status, headers);
      res.end(body, finish);
    }, delayMs);
  };
  const server: Server = options.https
    ? createHttpsServer(
        {
          key: readFileSync(new URL("../../tools/demo/tls/localhost.key", import.meta.url)),
          cert: readFileSync(new URL("../../tools/demo/tls/localhost.crt", import.meta.url)),
        },
        listener,
      )
    : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  seller.url = `${options.https ? "https" : "http"}://${host}:${(server.address() as AddressInfo).port}`;
  seller.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return seller;
}

/** The seller's 402 for a listing at `amount` atomic units paid to SELLER_PAY_TO in `asset`. */
export function paying(asset: string, amount = "30000", payTo = SELLER_PAY_TO): () => SellerAnswer {
  const answer = challengeAnswer(challenge([requirement({ payTo, amount, asset })]));
  return () => answer;
}

export const DOWN: () => SellerAnswer = () => ({ status: 503, body: "maintenance" });

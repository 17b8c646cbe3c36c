/**
 * The sellers of `npm run bench:health`, in a process of their own: COUNT x402 sellers, each on its
 * own loopback address (127.0.x.y: a distinct host to the re-prober's politeness), all on one port,
 * answering 402 with the same challenge. Prints one JSON line with their URLs when listening, then
 * the running request count every 100 ms while it changes.
 *   node --import tsx tools/bench/health-sellers.ts <count> <asset> <payTo> <amount> <port>
 */
import { createServer, type Server } from "node:http";
import { encodePaymentRequiredHeader } from "@x402/core/http";

const [count, payTo, amount, port] = [
  Number(process.argv[2]),
  process.argv[4]!,
  process.argv[5]!,
  Number(process.argv[6]),
];
const challengeFor = (asset: string) =>
  encodePaymentRequiredHeader({
    x402Version: 2,
    error: "Payment required",
    resource: { url: "https://seller.bench/api", description: "bench seller", mimeType: "application/json" },
    accepts: [
      {
        scheme: "exact",
        network: "eip155:8453",
        amount,
        asset,
        payTo,
        maxTimeoutSeconds: 300,
        extra: { name: "USD Coin", version: "2" },
      },
    ],
  });
const header = challengeFor(process.argv[3]!);

let requests = 0;
const servers: Server[] = [];
const urls: string[] = [];
for (let i = 0; i < count; i++) {
  const host = `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    res.writeHead(402, { "content-type": "application/json", "payment-required": header });
    res.end("{}");
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, host, resolve));
  servers.push(server);
  urls.push(`http://${host}:${port}`);
}
process.stdout.write(`${JSON.stringify({ urls })}\n`);
let reported = -1;
setInterval(() => {
  if (requests === reported) return;
  reported = requests;
  process.stdout.write(`${JSON.stringify({ requests })}\n`);
}, 100);

// x402 helper of the example scripts: reads JSON, and signs x402 v2 payments with the official SDK
// (@x402/core, @x402/evm) and viem, imported from the directory node runs in. Inputs come from
// environment variables, results go to stdout, errors to stderr with exit code 1.
//   key         chain file JSON on stdin, BUYER_INDEX  -> that buyer's private key
//   get PATH    JSON on stdin                          -> the value at PATH (a.b.0.c)
//   pick        catalog JSON on stdin, RESOURCE        -> resource, method, priceUsdc, requirement JSON (tab-separated)
//   sign        CHALLENGE (PAYMENT-REQUIRED header) or CHALLENGE_BODY (JSON), EXPECT (requirement JSON:
//               network, asset, payTo, amount), BUYER_PRIVATE_KEY -> PAYMENT-SIGNATURE header value
//   settlement  PAYMENT_RESPONSE header                -> the settlement as JSON
import { readFileSync } from "node:fs";

const fail = (message) => {
  process.stderr.write(`x402-helper: ${message}\n`);
  process.exit(1);
};
const env = (name) => process.env[name] || fail(`${name} is not set`);
const stdinJson = () => JSON.parse(readFileSync(0, "utf8"));
const same = (a, b) => String(a).toLowerCase() === String(b).toLowerCase();

async function sdk() {
  try {
    const [client, http, evm, exact, accounts] = await Promise.all([
      import("@x402/core/client"),
      import("@x402/core/http"),
      import("@x402/evm"),
      import("@x402/evm/exact/client"),
      import("viem/accounts"),
    ]);
    return { ...client, ...http, ...evm, ...exact, ...accounts };
  } catch (error) {
    fail(`the x402 SDK is not installed where node runs (${error.message}); run: npm install @x402/core @x402/evm viem`);
  }
}

const commands = {
  key() {
    const buyer = stdinJson().buyers?.[Number(process.env.BUYER_INDEX || 0)];
    if (!buyer?.privateKey) fail(`the chain file has no buyer ${process.env.BUYER_INDEX || 0}`);
    return buyer.privateKey;
  },

  get(path) {
    const value = String(path ?? "")
      .split(".")
      .filter(Boolean)
      .reduce((node, key) => (node == null ? undefined : node[key]), stdinJson());
    if (value === undefined) fail(`no value at ${path}`);
    return typeof value === "string" ? value : JSON.stringify(value);
  },

  pick() {
    const items = stdinJson().items ?? [];
    const wanted = process.env.RESOURCE;
    const item = wanted ? items.find((candidate) => candidate.resource === wanted) : items[0];
    if (!item) fail(wanted ? `${wanted} is not listed` : "the catalog has no listing to buy");
    const requirement = item.accepts?.find((accept) => accept.scheme === "exact");
    if (!requirement) fail(`${item.resource} has no exact payment requirement`);
    return [item.resource, item.method, item.metadata?.priceUsdc ?? "", JSON.stringify(requirement)].join("\t");
  },

  async sign() {
    const expected = JSON.parse(env("EXPECT"));
    const { x402Client, decodePaymentRequiredHeader, encodePaymentSignatureHeader, registerExactEvmScheme, toClientEvmSigner, privateKeyToAccount } = await sdk();
    const challenge = process.env.CHALLENGE ? decodePaymentRequiredHeader(process.env.CHALLENGE) : JSON.parse(env("CHALLENGE_BODY"));
    if (challenge.x402Version !== 2 || !Array.isArray(challenge.accepts)) fail("the 402 carries no x402 v2 challenge");
    // Pay only what was announced: same network, token and payee, and no more than the announced amount.
    const matching = challenge.accepts.filter(
      (requirement) =>
        requirement.scheme === "exact" &&
        requirement.network === expected.network &&
        same(requirement.asset, expected.asset) &&
        same(requirement.payTo, expected.payTo) &&
        BigInt(requirement.amount) <= BigInt(expected.amount),
    );
    if (matching.length === 0) {
      fail(
        `refusing to pay: no requirement of the challenge pays ${expected.payTo} at most ${expected.amount} of ${expected.asset} on ${expected.network} ` +
          `(exact scheme); it offers ${JSON.stringify(challenge.accepts)}`,
      );
    }
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: toClientEvmSigner(privateKeyToAccount(env("BUYER_PRIVATE_KEY"))) });
    client.setSpendControls({ allowedAssets: [{ network: expected.network, asset: expected.asset, maxAmountPerPayment: String(expected.amount) }] });
    const payload = await client.createPaymentPayload({ ...challenge, accepts: matching });
    return encodePaymentSignatureHeader(payload);
  },

  async settlement() {
    const { decodePaymentResponseHeader } = await sdk();
    return JSON.stringify(decodePaymentResponseHeader(env("PAYMENT_RESPONSE")));
  },
};

const [command, ...args] = process.argv.slice(1);
if (!commands[command]) fail(`unknown command ${command}; one of ${Object.keys(commands).join(", ")}`);
try {
  process.stdout.write(`${await commands[command](...args)}\n`);
} catch (error) {
  fail(error.message);
}

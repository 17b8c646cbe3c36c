// `/sell.html`: the fee, the requirements, the free dry run as a form, and the exact commands to
// list (CLI, list.sh, SDK), all from the sell playbook (`/sell.json`) and the fee card (`/fee.json`).
import type { VNode } from "preact";
import type { components } from "../../generated/openapi.js";
import { shellQuote } from "./format.js";
import { renderPage } from "./layout.js";

type SellPlaybook = components["schemas"]["SellPlaybook"];
type FeeCard = components["schemas"]["FeeCard"];

export interface SellView {
  siteName: string;
  /** The marketplace's address (the CLI's --url, the client's baseUrl). */
  marketUrl: string;
  playbook: SellPlaybook;
  fee: FeeCard;
  /** Where the list script is served (`/examples/list.sh`). */
  listScript: string;
  /** Where the example listing body is served (`/listings/example`). */
  exampleBody: string;
}

function commands({ playbook, marketUrl, listScript, exampleBody }: SellView) {
  const example = playbook.example;
  const flags =
    `--resource ${shellQuote(example.resource)} --method ${example.method ?? "POST"} --price ${example.priceUsdc} ` +
    `--description ${shellQuote(example.description)} --pay-to ${example.sellerPayTo} --url ${shellQuote(marketUrl)}`;
  const cli = [`npx x402-market validate ${flags}`, `X402_PRIVATE_KEY=0x… npx x402-market list ${flags}`].join("\n");
  const script = [
    `curl -fsS ${shellQuote(listScript)} -o list.sh`,
    `curl -fsS ${shellQuote(exampleBody)} -o listing.json   # then edit it`,
    `LISTING_FILE=listing.json BUYER_PRIVATE_KEY=0x… bash list.sh`,
  ].join("\n");
  const sdk = [
    `import { createMarketplaceClient, createPayer, payingFetch, readChallenge } from "x402-marketplace/client";`,
    `const market = createMarketplaceClient({ baseUrl: ${JSON.stringify(marketUrl)} });`,
    `const listing = ${JSON.stringify({ ...example, inputSchema: undefined }, null, 2)};`,
    `const { data: report } = await market.POST("/listings/validate", { body: listing });`,
    `const fee = (await readChallenge((await market.POST("/listings", {})).response))!.accepts[0]!;`,
    `const paid = createMarketplaceClient({ baseUrl: ${JSON.stringify(marketUrl)}, fetch: payingFetch(createPayer(process.env.X402_PRIVATE_KEY as \`0x\${string}\`, { expected: fee })) });`,
    `const { data: created } = await paid.POST("/listings", { body: listing });`,
  ].join("\n");
  return { cli, script, sdk };
}

function ValidateForm({ playbook, fee }: SellView): VNode {
  const example = playbook.example;
  return (
    <section aria-labelledby="validate">
      <h2 id="validate">Check your listing for free</h2>
      <p>
        The dry run runs every check of the paid route, including a probe of your endpoint, and charges and saves
        nothing. It sends your listing as JSON to <code>POST /listings/validate</code>.
      </p>
      <form id="validate-form" method="post" action={new URL(fee.validate).pathname}>
        <div>
          <label for="resource">Resource (https URL of your x402 endpoint)</label>
          <input id="resource" name="resource" type="url" required maxLength={2048} placeholder={example.resource} />
        </div>
        <div>
          <label for="method">Method</label>
          <select id="method" name="method">
            <option value="POST">POST</option>
            <option value="GET">GET</option>
          </select>
        </div>
        <div>
          <label for="priceUsdc">Price per call (USDC)</label>
          <input id="priceUsdc" name="priceUsdc" required inputMode="decimal" placeholder={example.priceUsdc} />
        </div>
        <div>
          <label for="description">Description (8 to 400 characters)</label>
          <textarea
            id="description"
            name="description"
            required
            minLength={8}
            maxLength={400}
            placeholder={example.description}
          />
        </div>
        <div>
          <label for="sellerPayTo">Your payTo address</label>
          <input
            id="sellerPayTo"
            name="sellerPayTo"
            required
            pattern="^0x[0-9a-fA-F]{40}$"
            placeholder={example.sellerPayTo}
          />
        </div>
        <div>
          <label for="inputSchema">Input JSON Schema (optional)</label>
          <textarea id="inputSchema" name="inputSchema" placeholder={JSON.stringify(example.inputSchema)} />
        </div>
        <p>
          <button type="submit">Validate</button>
        </p>
        <noscript>
          <p>This form needs JavaScript to send JSON. Without it, use the CLI or curl commands below.</p>
        </noscript>
      </form>
      <div id="validate-report" role="status" aria-live="polite" />
    </section>
  );
}

/** The form comes first, after one line on the fee; the commands follow it, then the fee in full, the requirements, the steps and the policy. */
function Sell(view: SellView): VNode {
  const { playbook, fee } = view;
  const { cli, script, sdk } = commands(view);
  return (
    <>
      <h1>{playbook.title}</h1>
      <p class="lead">{playbook.summary}</p>
      <p>
        {`Listing costs ${fee.usdc} USDC per ${playbook.listingFee.ttlDays}-day period, paid with x402 on ${fee.network}. Checking a listing first is free: `}
        <a href="#validate">fill in the form below</a>, then <a href="#list-it">list it</a>.{" "}
        <a href="#steps">The steps in full</a>.
      </p>
      <ValidateForm {...view} />
      <h2 id="list-it">List it</h2>
      <h3>With the CLI</h3>
      <pre aria-label="CLI commands">{cli}</pre>
      <h3>With curl and list.sh</h3>
      <pre aria-label="list.sh commands">{script}</pre>
      <h3>With the TypeScript client</h3>
      <pre aria-label="SDK snippet">{sdk}</pre>
      <h2>The fee</h2>
      <dl class="fields">
        <dt>Fee</dt>
        <dd>{`${fee.usdc} USDC (${fee.amount} atomic units), once per ${playbook.listingFee.ttlDays}-day listing period`}</dd>
        <dt>Paid with</dt>
        <dd>{`x402 ${fee.scheme} on ${fee.network}, token ${fee.extra.name} v${fee.extra.version}`}</dd>
        <dt>Token</dt>
        <dd class="mono">{fee.asset}</dd>
        <dt>Paid to</dt>
        <dd class="mono">{fee.payTo}</dd>
        <dt>Route</dt>
        <dd>
          <code>{`${fee.method} ${fee.path}`}</code>; the challenge as JSON:{" "}
          <a href={new URL(fee.challenge).pathname}>{new URL(fee.challenge).pathname}</a>
        </dd>
      </dl>
      <p class="twin">
        The fee card as JSON: <a href="/fee.json">/fee.json</a>
      </p>
      <h2>What you need</h2>
      <ul>
        {playbook.requirements.map((requirement, index) => (
          <li key={index}>{requirement}</li>
        ))}
      </ul>
      <h2 id="steps">Steps</h2>
      <ol>
        {playbook.steps.map((step) => (
          <li key={step.step}>
            <strong>{step.title}.</strong> {step.action}
          </li>
        ))}
      </ol>
      <h2>Policy</h2>
      <ul>
        {playbook.policy.map((rule, index) => (
          <li key={index}>{rule}</li>
        ))}
      </ul>
    </>
  );
}

export function sellPage(view: SellView): string {
  return renderPage({
    title: "Sell",
    siteName: view.siteName,
    description: "List your x402-paid endpoint: fee, requirements, a free dry run and the commands.",
    jsonTwin: "/sell.json",
    script: true,
    children: <Sell {...view} />,
  });
}

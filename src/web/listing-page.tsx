// `/listing/{id}`: every field of one listing's document (GET /listings/{id}), its declared
// schemas, its health and usage history as charts and tables, and copy-ready commands.
import type { VNode } from "preact";
import type { components } from "../../generated/openapi.js";
import { BarChart } from "./charts.js";
import { clip, formatInstant, formatShare, shellQuote } from "./format.js";
import { HealthBadge, ServiceIcon, TagChips, nameOf } from "./catalog-card.js";
import { renderPage } from "./layout.js";

type ListingDocument = components["schemas"]["ListingDocument"];
type CatalogItem = components["schemas"]["CatalogItem"];

export interface ListingView {
  siteName: string;
  /** The marketplace's address, for the CLI line (`--url`). */
  marketUrl: string;
  document: ListingDocument;
  /** `/listings/{id}`. */
  jsonTwin: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
const daysText = (count: number) => (count === 1 ? "1 day" : `${count} days`);

function Field({ name, children }: { name: string; children: preact.ComponentChildren }): VNode {
  return (
    <>
      <dt>{name}</dt>
      <dd>{children}</dd>
    </>
  );
}

function ItemFields({ item }: { item: CatalogItem }): VNode {
  const { metadata } = item;
  return (
    <dl class="fields">
      <Field name="Resource">
        <span class="mono">{item.resource}</span>
      </Field>
      <Field name="Method">{item.method}</Field>
      <Field name="Description">{item.description}</Field>
      <Field name="Response type">{item.mimeType}</Field>
      {item.serviceName !== undefined && <Field name="Service name">{item.serviceName}</Field>}
      {item.tags && <Field name="Tags">{item.tags.join(", ")}</Field>}
      {item.iconUrl !== undefined && (
        <Field name="Icon URL">
          <span class="mono">{item.iconUrl}</span>
        </Field>
      )}
      <Field name="Price">{`${metadata.priceUsdc} USDC per call`}</Field>
      <Field name="Seller (payTo)">
        <span class="mono">{metadata.salePayTo}</span>
      </Field>
      <Field name="Owner verified">
        {metadata.ownerVerified ? "yes: the fee was paid by the seller's address, or its owner signed a claim" : "no"}
      </Field>
      <Field name="Listed">{formatInstant(metadata.listedAt)}</Field>
      <Field name="Expires">{formatInstant(metadata.expiresAt)}</Field>
      <Field name="Last updated">{formatInstant(item.lastUpdated)}</Field>
      <Field name="Listing id">
        <span class="mono">{metadata.listingId}</span>
      </Field>
      <Field name="Marketplace">{`${metadata.marketplace}, sale take ${metadata.saleTakeBps} bps`}</Field>
      {metadata.leftoverSeed && <Field name="Seed row">yes: a first-party demo endpoint</Field>}
      <Field name="Type">{`${item.type}, x402 v${item.x402Version}`}</Field>
    </dl>
  );
}

function Requirements({ item }: { item: CatalogItem }): VNode {
  return (
    <div class="table">
      <table>
        <caption class="twin">What the seller's 402 must ask for (accepts)</caption>
        <thead>
          <tr>
            <th scope="col">Scheme</th>
            <th scope="col">Network</th>
            <th scope="col">Amount (atomic)</th>
            <th scope="col">Asset</th>
            <th scope="col">Pay to</th>
            <th scope="col">Timeout</th>
            <th scope="col">Token</th>
          </tr>
        </thead>
        <tbody>
          {item.accepts.map((requirement, index) => (
            <tr key={index}>
              <td>{requirement.scheme}</td>
              <td>{requirement.network}</td>
              <td>{requirement.amount}</td>
              <td class="mono">{requirement.asset}</td>
              <td class="mono">{requirement.payTo}</td>
              <td>{`${requirement.maxTimeoutSeconds} s`}</td>
              <td>{`${requirement.extra.name} v${requirement.extra.version}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Health({ document }: { document: ListingDocument }): VNode {
  const { health } = document.item.metadata;
  const days = document.healthHistory;
  return (
    <section aria-labelledby="health">
      <h2 id="health">Health</h2>
      <dl class="fields">
        <Field name="Status">
          <HealthBadge health={health} />
        </Field>
        <Field name="Uptime 24 h / 7 d / 30 d">{`${formatShare(health.uptime24h)} / ${formatShare(health.uptime7d)} / ${formatShare(health.uptime30d)}`}</Field>
        {health.p50LatencyMs !== undefined && <Field name="Median latency (24 h)">{`${health.p50LatencyMs} ms`}</Field>}
        <Field name="Last checked">{formatInstant(health.lastCheckedAt)}</Field>
        <Field name="Last healthy">{formatInstant(health.lastHealthyAt)}</Field>
        {health.failureCode !== undefined && <Field name="Failure">{health.failureCode}</Field>}
      </dl>
      <h3>Daily uptime</h3>
      {days.length === 0 ? (
        <p>No re-probe history yet: the marketplace re-probes listings on a schedule, and the days appear here.</p>
      ) : (
        <>
          <BarChart
            color="#0d6b2f"
            max={1}
            summary={`Daily uptime over ${daysText(days.length)}, from ${formatShare(Math.min(...days.map((day) => day.uptime)))} to ${formatShare(Math.max(...days.map((day) => day.uptime)))}`}
            bars={days.map((day) => ({
              day: day.day,
              value: day.uptime,
              label: `${formatShare(day.uptime)} of ${day.probes} probes`,
            }))}
          />
          <details>
            <summary>Daily uptime as a table</summary>
            <div class="table">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col">Probes</th>
                    <th scope="col">Passed</th>
                    <th scope="col">Uptime</th>
                    <th scope="col">Median latency</th>
                  </tr>
                </thead>
                <tbody>
                  {days.map((day) => (
                    <tr key={day.day}>
                      <td>{day.day}</td>
                      <td>{day.probes}</td>
                      <td>{day.successes}</td>
                      <td>{formatShare(day.uptime)}</td>
                      <td>{day.p50LatencyMs === undefined ? "–" : `${day.p50LatencyMs} ms`}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
      <h3>Last probes</h3>
      {document.lastProbes.length === 0 ? (
        <p>No probe recorded yet.</p>
      ) : (
        <div class="table">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Result</th>
                <th scope="col">Latency</th>
              </tr>
            </thead>
            <tbody>
              {document.lastProbes.map((probe, index) => (
                <tr key={index}>
                  <td>{formatInstant(probe.at)}</td>
                  <td class={probe.ok ? "pass" : "fail"}>
                    {probe.ok ? "passed" : `failed${probe.code ? `: ${probe.code}` : ""}`}
                  </td>
                  <td>{probe.latencyMs === undefined ? "–" : `${probe.latencyMs} ms`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Usage({ document }: { document: ListingDocument }): VNode {
  const { usage, sellerUsage } = document.item.metadata;
  const days = document.usageHistory;
  return (
    <section aria-labelledby="usage">
      <h2 id="usage">Usage</h2>
      {usage ? (
        <dl class="fields">
          <Field name="Calls (30 days)">{usage.l30DaysTotalCalls}</Field>
          <Field name="Unique payers (30 days)">{usage.l30DaysUniquePayers}</Field>
          <Field name="Volume (30 days)">{`${usage.l30DaysVolumeUsdc} USDC`}</Field>
          <Field name="Last called">{formatInstant(usage.lastCalledAt)}</Field>
          <Field name="Before wash filtering">{`${usage.raw.l30DaysTotalCalls} calls, ${usage.raw.l30DaysUniquePayers} payers, ${usage.raw.l30DaysVolumeUsdc} USDC`}</Field>
          <Field name="Counted">{`${usage.provenance}, up to block ${usage.currentToBlock}`}</Field>
        </dl>
      ) : (
        <p>No sales attributed to this listing yet (sales are counted from settled transfers on chain).</p>
      )}
      {sellerUsage && (
        <p>{`The seller also has ${sellerUsage.l30DaysTotalCalls} sales (${sellerUsage.l30DaysVolumeUsdc} USDC) in 30 days that could belong to any of its ${sellerUsage.listings} listings.`}</p>
      )}
      {days.length > 0 && (
        <>
          <h3>Daily calls</h3>
          <BarChart
            color="#0b57d0"
            summary={`Daily calls over ${daysText(days.length)}, ${days.reduce((sum, day) => sum + day.calls, 0)} in all`}
            bars={days.map((day) => ({
              day: day.day,
              value: day.calls,
              label: `${day.calls} calls, ${day.payers} payers, ${day.volumeUsdc} USDC`,
            }))}
          />
          <details>
            <summary>Daily calls as a table</summary>
            <div class="table">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col">Calls</th>
                    <th scope="col">Payers</th>
                    <th scope="col">Volume (USDC)</th>
                  </tr>
                </thead>
                <tbody>
                  {days.map((day) => (
                    <tr key={day.day}>
                      <td>{day.day}</td>
                      <td>{day.calls}</td>
                      <td>{day.payers}</td>
                      <td>{day.volumeUsdc}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </section>
  );
}

function Schemas({ item }: { item: CatalogItem }): VNode {
  const bazaar = item.extensions?.bazaar as
    { info?: { input?: unknown; output?: unknown }; schema?: unknown } | undefined;
  return (
    <section aria-labelledby="schemas">
      <h2 id="schemas">Input and output</h2>
      {bazaar ? (
        <>
          {bazaar.info?.input !== undefined && (
            <>
              <h3>Input example</h3>
              <pre>{json(bazaar.info.input)}</pre>
            </>
          )}
          {bazaar.info?.output !== undefined && (
            <>
              <h3>Output example</h3>
              <pre>{json(bazaar.info.output)}</pre>
            </>
          )}
          {bazaar.schema !== undefined && (
            <>
              <h3>JSON Schema the seller declared</h3>
              <pre>{json(bazaar.schema)}</pre>
            </>
          )}
        </>
      ) : (
        <p>The seller's 402 declares no input or output schema (no bazaar extension).</p>
      )}
    </section>
  );
}

function Commands({ item, marketUrl }: { item: CatalogItem; marketUrl: string }): VNode {
  const curl =
    item.method === "GET"
      ? `curl -i ${shellQuote(item.resource)}`
      : `curl -i -X POST ${shellQuote(item.resource)} -H 'content-type: application/json' -d '{}'`;
  const buy = `npx x402-market buy ${item.metadata.listingId} --max ${item.metadata.priceUsdc} --url ${shellQuote(marketUrl)}`;
  return (
    <section aria-labelledby="try">
      <h2 id="try">Try it</h2>
      <p>Call it unpaid: the seller answers 402 with its challenge, which must match the requirement above.</p>
      <pre aria-label="curl command">{curl}</pre>
      <p>Buy one call with the marketplace's CLI, capped at the listed price (asks before paying):</p>
      <pre aria-label="x402-market command">{buy}</pre>
    </section>
  );
}

function Listing({ document, marketUrl }: ListingView): VNode {
  const { item } = document;
  return (
    <>
      <p>
        <a href="/">← Catalog</a>
      </p>
      <div class="card-head">
        <ServiceIcon name={nameOf(item)} />
        <h1>{item.serviceName ?? clip(item.description, 80)}</h1>
      </div>
      <TagChips tags={item.tags} />
      <ItemFields item={item} />
      <h2>Payment</h2>
      <Requirements item={item} />
      <Health document={document} />
      <Usage document={document} />
      <Schemas item={item} />
      <Commands item={item} marketUrl={marketUrl} />
    </>
  );
}

export function listingPage(view: ListingView): string {
  const { item } = view.document;
  return renderPage({
    title: item.serviceName ?? clip(item.description, 60),
    siteName: view.siteName,
    description: `${item.method} ${item.resource}: ${item.metadata.priceUsdc} USDC per call.`,
    jsonTwin: view.jsonTwin,
    children: <Listing {...view} />,
  });
}

/** The 404 page of a listing that is not live. */
export function missingListingPage(siteName: string, id: string): string {
  return renderPage({
    title: "Listing not found",
    siteName,
    description: "This listing is not live.",
    jsonTwin: `/listings/${encodeURIComponent(id)}`,
    children: (
      <>
        <h1>Listing not found</h1>
        <p>{`No live listing ${id}: it never existed, expired, failed or was delisted.`}</p>
        <p>
          <a href="/">Search the catalog</a>
        </p>
      </>
    ),
  });
}

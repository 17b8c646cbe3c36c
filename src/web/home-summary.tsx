// The catalog at a glance, beside the first unfiltered page: live listings by health (a bar and in
// words), the newest listings, and the most used ones in 30 days (a bar chart and a list).
import type { VNode } from "preact";
import type { components } from "../../generated/openapi.js";
import { ServiceIcon, listingHref, nameOf } from "./catalog-card.js";

type CatalogItem = components["schemas"]["CatalogItem"];

export type HealthCounts = Record<"healthy" | "unhealthy" | "drifted" | "unknown", number>;

export interface SummaryView {
  byHealth?: HealthCounts | undefined;
  /** The newest third-party listings. */
  newest?: CatalogItem[] | undefined;
  /** The third-party listings with the most 30-day sales (at least one). */
  mostUsed?: CatalogItem[] | undefined;
}

const HEALTH_COLORS = { healthy: "#1f7a3a", unknown: "#6b7380", unhealthy: "#b42318", drifted: "#b54708" } as const;

function HealthBar({ byHealth }: { byHealth: HealthCounts }): VNode | null {
  const parts = (Object.keys(HEALTH_COLORS) as Array<keyof typeof HEALTH_COLORS>).map((status) => ({
    status,
    count: byHealth[status],
  }));
  const total = parts.reduce((sum, part) => sum + part.count, 0);
  if (total === 0) return null;
  const summary = parts
    .map((part) => `${part.count} ${part.status === "unknown" ? "not re-probed yet" : part.status}`)
    .join(", ");
  let x = 0;
  return (
    <figure class="chart">
      <svg
        viewBox="0 0 600 24"
        role="img"
        aria-label={`Live listings by health: ${summary}`}
        xmlns="http://www.w3.org/2000/svg"
      >
        {parts.map((part) => {
          const width = (part.count / total) * 600;
          const rect = (
            <rect key={part.status} x={x} y="0" width={width} height="24" fill={HEALTH_COLORS[part.status]} />
          );
          x += width;
          return rect;
        })}
      </svg>
      <figcaption class="twin">{`${total} live listings: ${summary}.`}</figcaption>
    </figure>
  );
}

const callsOf = (item: CatalogItem) => item.metadata.usage?.l30DaysTotalCalls ?? 0;

/** Horizontal bars of the most used listings' 30-day calls; the list beside it names them and gives the numbers. */
function UsageBars({ items }: { items: CatalogItem[] }): VNode {
  const top = Math.max(1, ...items.map(callsOf));
  const row = 14;
  const summary = items.map((item) => `${nameOf(item)}: ${callsOf(item)} calls`).join("; ");
  return (
    <svg
      class="bars"
      viewBox={`0 0 300 ${items.length * row}`}
      role="img"
      aria-label={`Calls in 30 days: ${summary}`}
      xmlns="http://www.w3.org/2000/svg"
    >
      {items.map((item, index) => (
        <rect
          key={item.metadata.listingId}
          x="0"
          y={index * row + 2}
          width={Math.max((callsOf(item) / top) * 300, 2)}
          height={row - 4}
          fill="#0b57d0"
        />
      ))}
    </svg>
  );
}

function Listed({ items, fact }: { items: CatalogItem[]; fact: (item: CatalogItem) => string }): VNode {
  return (
    <ol class="mini">
      {items.map((item) => (
        <li key={item.metadata.listingId}>
          <ServiceIcon name={nameOf(item)} size="small" />
          <a href={listingHref(item)}>{nameOf(item)}</a> <span class="muted">{fact(item)}</span>
        </li>
      ))}
    </ol>
  );
}

/** Nothing when the catalog has no live listing of a seller. */
export function Summary({ byHealth, newest = [], mostUsed = [] }: SummaryView): VNode | null {
  const live = byHealth ? Object.values(byHealth).reduce((sum, count) => sum + count, 0) : 0;
  if (live === 0 && newest.length === 0) return null;
  const bar = byHealth && <HealthBar byHealth={byHealth} />;
  return (
    <aside class="summary" aria-labelledby="glance">
      <h2 id="glance">At a glance</h2>
      {bar}
      {newest.length > 0 && (
        <>
          <h3 id="newest">Newest</h3>
          <Listed
            items={newest}
            fact={(item) => `${item.metadata.priceUsdc} USDC, listed ${item.metadata.listedAt.slice(0, 10)}`}
          />
        </>
      )}
      <h3 id="most-used">Most used (30 days)</h3>
      {mostUsed.length > 0 ? (
        <>
          <UsageBars items={mostUsed} />
          <Listed items={mostUsed} fact={(item) => `${callsOf(item)} calls`} />
        </>
      ) : (
        <p class="muted">No paid calls counted yet.</p>
      )}
    </aside>
  );
}

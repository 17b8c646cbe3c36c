// One catalog item as a card: its icon and name, the description cut at a word, price, health,
// usage, owner, network, expiry and its tags as chips that filter the catalog.
//
// The icon is the name's first letter on a colour picked from the name, drawn in CSS. A seller's
// `iconUrl` is not loaded: the pages allow images only from this origin (`img-src 'self' data:`),
// and a remote image would tell each seller who browses the catalog, and could change under the
// listing at any time.
import type { VNode } from "preact";
import type { components } from "../../generated/openapi.js";
import { clip, formatInstant, formatShare, pathWithQuery, shortAddress } from "./format.js";

type CatalogItem = components["schemas"]["CatalogItem"];

/** Icon colours (classes `icon c0`…): each holds white text at AA contrast. */
export const ICON_COLOURS = 6;

export function HealthBadge({ health }: { health: CatalogItem["metadata"]["health"] }): VNode {
  const uptime = health.uptime24h === undefined ? "" : `, ${formatShare(health.uptime24h)} up in 24 h`;
  const status = health.status === "unknown" ? "not re-probed yet" : health.status;
  return <span class={`badge ${health.status}`}>{`${status}${uptime}`}</span>;
}

/** A card's title when the seller's 402 names no service: its host and first path segment (the description follows below). */
export function nameOf(item: Pick<CatalogItem, "serviceName" | "resource">): string {
  if (item.serviceName) return item.serviceName;
  try {
    const url = new URL(item.resource);
    const segment = url.pathname.split("/").find(Boolean);
    return clip(`${url.host}${segment ? `/${segment}` : ""}`, 60);
  } catch {
    return clip(item.resource, 60);
  }
}

/** The icon's letter and colour: the name's first letter or digit (a host's without `www.`), a colour from the whole name. */
export function iconOf(name: string): { letter: string; colour: number } {
  const letter = /[\p{L}\p{N}]/u.exec(name.replace(/^www\./i, ""))?.[0]?.toUpperCase() ?? "?";
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
  return { letter, colour: hash % ICON_COLOURS };
}

export function ServiceIcon({ name, size = "" }: { name: string; size?: "" | "small" }): VNode {
  const { letter, colour } = iconOf(name);
  return (
    <span class={`icon c${colour}${size ? ` ${size}` : ""}`} aria-hidden="true">
      {letter}
    </span>
  );
}

export function listingHref(item: CatalogItem): string {
  return `/listing/${encodeURIComponent(item.metadata.listingId)}`;
}

function usageText(usage: CatalogItem["metadata"]["usage"]): string {
  if (!usage) return "no sales counted yet";
  const calls = usage.l30DaysTotalCalls;
  return `${calls} ${calls === 1 ? "call" : "calls"}, ${usage.l30DaysUniquePayers} ${usage.l30DaysUniquePayers === 1 ? "payer" : "payers"} in 30 days`;
}

/** Tags as chips, each a link to the catalog filtered by it. */
export function TagChips({ tags }: { tags: string[] | undefined }): VNode | null {
  if (!tags || tags.length === 0) return null;
  return (
    <ul class="chips" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag}>
          <a href={pathWithQuery("/", { tags: tag })}>{tag}</a>
        </li>
      ))}
    </ul>
  );
}

export function Card({ item }: { item: CatalogItem }): VNode {
  const { metadata } = item;
  const requirement = item.accepts[0];
  const name = nameOf(item);
  return (
    <li class="card">
      <div class="card-head">
        <ServiceIcon name={name} />
        <h3>
          <a href={listingHref(item)}>{name}</a>
          {metadata.leftoverSeed && <span class="badge"> demo</span>}
          {metadata.source === "indexed" && (
            <span class="badge"> {`indexed from ${metadata.provenance?.source ?? "another catalog"}`}</span>
          )}
        </h3>
      </div>
      <p class="desc">{clip(item.description, 200)}</p>
      <ul class="facts">
        {metadata.match && (
          <li>
            <span
              class={`badge match-${metadata.match}`}
              title="How well this listing answers the question (rankReasons.relevance)"
            >
              {metadata.match === "strong" ? "strong match" : "weak match"}
            </span>
          </li>
        )}
        <li>
          <strong>{metadata.priceUsdc} USDC</strong> per call
        </li>
        <li>
          <HealthBadge health={metadata.health} />
        </li>
        <li>{usageText(metadata.usage)}</li>
        {metadata.ownerVerified && (
          <li>
            <span class="badge verified">verified owner</span>
          </li>
        )}
      </ul>
      <TagChips tags={item.tags} />
      <p class="mono small">
        <span class="badge">{item.method}</span> {item.resource}
      </p>
      <ul class="facts small">
        <li>
          seller <span class="mono">{shortAddress(metadata.salePayTo)}</span>
        </li>
        {requirement && <li>{requirement.network}</li>}
        <li>until {formatInstant(metadata.expiresAt)}</li>
      </ul>
    </li>
  );
}

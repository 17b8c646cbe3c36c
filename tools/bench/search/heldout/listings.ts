// The held-out catalog (issue 43): every listing of listings-a..d.ts with its derived facts.
import { ROWS_A } from "./listings-a.js";
import { ROWS_B } from "./listings-b.js";
import { REPEATS, ROWS_C } from "./listings-c.js";
import { ROWS_D } from "./listings-d.js";
import { kind, payToOf, slug, type HeldoutListing, type ListingRow } from "./model.js";

/** Sellers whose payTo is verified (the brands' owners among them). */
export const VERIFIED_SELLERS: ReadonlySet<string> = new Set([
  "Skycast",
  "PolyglotAI",
  "IdentiCheck",
  "SanctionScan",
  "ScribeFlow",
  "VoxForge",
  "Vecta",
  "Mapwise",
  "Ledgerly",
  "CoinPulse",
  "Tickerly",
  "WhoisXpress",
  "PageSnap",
  "ParcelPing",
  "Cortex",
  "PDFForge",
  "Dreamforge",
  "Cutout",
  "Harvestly",
  "DataForge",
  "Apiverse",
  "Bouncer",
  "Numberly",
  "Registrar Hub",
  "Taxcheck",
  "Skytrack",
  "Calendrix",
  "Nutrio",
  "Pantry Chef",
  "Hearth Data",
  "Hireboard",
  "Scoreline",
  "Certwatch",
  "DigHub",
  "Lumen Vision",
  "Tallyroll",
  "Docuparse",
  "Veriface",
  "Moodmeter",
  "Sandboxr",
  "TLDRify",
  "Safeguard",
  "Newswire One",
  "BreatheEasy",
  "IPLocator",
  "Postwise",
  "Zoned",
  "Virion",
  "Framepipe",
  "Encyclopedix",
  "Meteoblock",
  "Clima Preciso",
  "Sprachwerk",
  "Tidewater Data",
  "Itemdb",
  "Shipwise",
  "Openweights Inference",
]);

function build(): HeldoutListing[] {
  const listings: HeldoutListing[] = [];
  for (const rows of [ROWS_A, ROWS_B, ROWS_C, ROWS_D] as Array<Record<string, ListingRow[]>>) {
    for (const [name, kindRows] of Object.entries(rows))
      listings.push(...kind(name, kindRows, VERIFIED_SELLERS, listings.length));
  }
  const byId = new Map(listings.map((listing) => [listing.id, listing]));
  for (const repeat of REPEATS) {
    const original = byId.get(repeat.of)!;
    listings.push({
      ...original,
      id: repeat.id,
      seller: repeat.seller,
      description: `${original.description}${repeat.suffix}`,
      resource: `https://api.${slug(repeat.seller)}.example/${repeat.path ?? new URL(original.resource).pathname.slice(1)}`,
      payTo: payToOf(repeat.seller),
      verified: VERIFIED_SELLERS.has(repeat.seller),
      priceMicros: repeat.priceMicros,
      listedAt: original.listedAt + 30 * 86_400_000,
    });
  }
  const seen = new Set<string>();
  for (const listing of listings) {
    if (seen.has(listing.id)) throw new Error(`duplicate listing id ${listing.id}`);
    seen.add(listing.id);
    if (listing.copies && !byId.has(listing.copies)) throw new Error(`${listing.id} copies an unknown listing`);
  }
  return listings;
}

export const LISTINGS: HeldoutListing[] = build();

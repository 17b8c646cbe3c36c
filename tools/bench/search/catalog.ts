// Builds the benchmark's catalog from categories.ts, deterministically (a seeded generator): eight
// listings per kind of service from its sellers and descriptions, the brand look-alikes, and on
// request padding listings (recombined material under other sellers) to reach 10k or 100k.
import { BRANDS, CATEGORIES, type Category } from "./categories.js";
import type { SearchDocument } from "../../../src/search/types.js";

export interface BenchListing extends SearchDocument {
  /** The kind of service (graded by queries.ts); "" for padding. */
  category: string;
  /** For a look-alike: the brand it copies. */
  copies?: string;
}

export const PER_CATEGORY = 8;

/** mulberry32: a small seeded generator, so every run builds the same catalog. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashHex(text: string, length: number): string {
  let h1 = 0x811c9dc5;
  let out = "";
  for (let round = 0; out.length < length; round++) {
    for (const c of `${round}:${text}`) h1 = Math.imul(h1 ^ c.charCodeAt(0), 16777619) >>> 0;
    out += h1.toString(16).padStart(8, "0");
  }
  return out.slice(0, length);
}

export const payToOf = (seller: string) => `0x${hashHex(`payto ${seller}`, 40)}`;
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

const BRAND_SELLERS = new Set<string>(BRANDS.map((brand) => brand.seller));

function listing(
  random: () => number,
  id: string,
  category: Category,
  seller: string,
  description: string,
  path: string,
  listedAt: number,
): BenchListing {
  const health = random();
  return {
    id,
    category: category.key,
    serviceName: seller,
    description,
    resource: `https://api.${slug(seller)}.example/${path}`,
    tags: category.tags.slice(0, 1 + Math.floor(random() * category.tags.length)),
    payTo: payToOf(seller),
    priceMicros: (1 + Math.floor(random() * 50)) * 1000,
    verified: BRAND_SELLERS.has(seller) || random() < 0.35,
    health: health < 0.8 ? "healthy" : health < 0.9 ? "unhealthy" : "unknown",
    calls30d: random() < 0.5 ? 0 : Math.floor(random() ** 3 * 5000),
    listedAt,
  };
}

/** The graded catalog: eight listings per category and the look-alikes of the brands. */
export function benchCatalog(): BenchListing[] {
  const random = seeded(402);
  const listings: BenchListing[] = [];
  let at = Date.UTC(2026, 9, 1);
  for (const category of CATEGORIES) {
    for (let i = 0; i < PER_CATEGORY; i++) {
      const seller = category.sellers[i % category.sellers.length]!;
      const base = category.descriptions[i % category.descriptions.length]!;
      const extra =
        i >= category.descriptions.length || random() < 0.3 ? ` ${category.extras[i % category.extras.length]}` : "";
      const description = BRAND_SELLERS.has(seller) && i === 0 ? `${seller}: ${base}${extra}` : `${base}${extra}`;
      listings.push(
        listing(
          random,
          `${category.key}-${i}`,
          category,
          seller,
          description,
          category.paths[i % category.paths.length]!,
          (at += 3_600_000),
        ),
      );
    }
  }
  for (const brand of BRANDS) {
    const category = CATEGORIES.find((c) => c.key === brand.category)!;
    brand.lookalikes.forEach((name, i) => {
      const copied = `${brand.seller}: ${category.descriptions[0]} Official ${brand.seller} endpoint.`;
      const fake = listing(
        random,
        `${category.key}-copy-${i}`,
        category,
        name,
        i % 2 ? copied.replaceAll(brand.seller, name) : copied,
        category.paths[0]!,
        (at += 3_600_000),
      );
      // An impersonator is fresh, cheap and unverified, and often looks busy.
      listings.push({
        ...fake,
        verified: false,
        health: "healthy",
        priceMicros: 500,
        calls30d: 900,
        copies: brand.seller,
      });
    });
  }
  return listings;
}

const PAD_WORDS = [
  "Prime",
  "Hub",
  "Go",
  "Max",
  "Labs",
  "Cloud",
  "Direct",
  "Express",
  "Nova",
  "Zen",
  "One",
  "Edge",
  "Core",
  "Wave",
  "Stack",
];

/** `count` padding listings, one at a time (none kept): the categories' material recombined under new sellers (not graded). */
export function* paddingListings(count: number, seed = 7): Generator<BenchListing> {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  let at = Date.UTC(2026, 0, 1);
  for (let i = 0; i < count; i++) {
    const category = pick(CATEGORIES);
    const seller = `${pick(PAD_WORDS)}${pick(PAD_WORDS)} ${Math.floor(random() * 5000)}`;
    const description = `${pick(category.descriptions)} ${pick(category.extras)}`;
    yield {
      ...listing(random, `pad-${i}`, category, seller, description, `${pick(category.paths)}/${i}`, (at += 60_000)),
      category: "",
    };
  }
}

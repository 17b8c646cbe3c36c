// The benchmark's questions, in a buyer agent's own words. Relevance is graded per listing kind
// (3: exactly what was asked, 2: does the job with some work, 1: related); a brand query grades the
// brand's verified listings 3 and its look-alikes 0. `none`: nothing in the catalog answers it.

import type { BenchListing } from "./catalog.js";

export type QueryKind = "paraphrase" | "synonym" | "typo" | "short" | "long" | "brand" | "none";

export interface BenchQuery {
  q: string;
  kind: QueryKind;
  rel: Record<string, number>;
  /** For a brand query: the verified seller asked for. */
  brand?: string;
}

const q = (kind: QueryKind, text: string, rel: Record<string, number> = {}, brand?: string): BenchQuery => ({
  q: text,
  kind,
  rel,
  ...(brand ? { brand } : {}),
});

export const QUERIES: BenchQuery[] = [
  // Paraphrases: the need, not the product's name.
  q("paraphrase", "notes from a meeting recording", { transcription: 3, summarization: 2 }),
  q("paraphrase", "is this company's tax number valid", { vat: 3, sanctions: 1 }),
  q("paraphrase", "get the words out of a photo of a receipt", { ocr: 3, pdf: 1 }),
  q("paraphrase", "should I bring an umbrella tomorrow in Lisbon", { weather: 3, airquality: 1 }),
  q("paraphrase", "how many yen is 250 euros", { fx: 3, crypto: 1 }),
  q("paraphrase", "cheapest place to fill my tank near me", { fuel: 3 }),
  q("paraphrase", "where is my package", { parcel: 3 }),
  q("paraphrase", "make my product copy readable for customers in Brazil", { translation: 3 }),
  q("paraphrase", "turn this podcast episode into text", { transcription: 3 }),
  q("paraphrase", "draw a picture of a cat riding a bicycle", { imagegen: 3 }),
  q("paraphrase", "what is bitcoin worth right now", { crypto: 3, stocks: 1 }),
  q("paraphrase", "will this message bounce if I send it", { email: 3 }),
  q("paraphrase", "latitude and longitude for 10 Downing Street", { geocoding: 3, address: 2 }),
  q("paraphrase", "read the table out of a PDF bank statement", { pdf: 3, ocr: 2 }),
  q("paraphrase", "who won the game last night", { sports: 3 }),
  q("paraphrase", "how is Apple's share price doing today", { stocks: 3 }),
  q("paraphrase", "what's going on in the world today", { news: 3 }),
  q("paraphrase", "which country is this visitor's connection coming from", { ipgeo: 3 }),
  q("paraphrase", "are people happy or angry in these product reviews", { sentiment: 3 }),
  q("paraphrase", "give me the short version of this 40 page report", { summarization: 3 }),
  q("paraphrase", "take a picture of a website", { screenshot: 3 }),
  q("paraphrase", "is my flight to Denver on time", { flights: 3 }),
  q("paraphrase", "is anyone on a government blacklist before we onboard them", { sanctions: 3 }),
  q("paraphrase", "put my sneaker photo on a white backdrop", { bgremove: 3, imagegen: 1 }),
  q("paraphrase", "how much protein is in a bowl of oatmeal", { nutrition: 3 }),
  q("paraphrase", "is it safe to go jogging outside with the wildfire smoke", { airquality: 3, weather: 1 }),
  q("paraphrase", "what time is it in Sydney", { timezone: 3 }),
  q("paraphrase", "ask an AI assistant a question", { llm: 3 }),
  q("paraphrase", "does the person in the selfie match the passport photo", { face: 3 }),
  q("paraphrase", "what product is behind this scanned barcode number", { barcode: 3 }),
  q("paraphrase", "is next Monday a day off in Germany", { holidays: 3 }),
  q("paraphrase", "what is my house worth", { realestate: 3 }),
  q("paraphrase", "read this text out loud", { tts: 3 }),
  q("paraphrase", "who owns example.com and when does it expire", { whois: 3 }),
  q("paraphrase", "grab the prices from a competitor's online shop", { scraping: 3 }),
  q("paraphrase", "who is calling me, what carrier is this number on", { phone: 3 }),
  // Synonyms: a different word for the same service.
  q("synonym", "dictation", { transcription: 3 }),
  q("synonym", "petrol cost", { fuel: 3 }),
  q("synonym", "forex", { fx: 3 }),
  q("synonym", "localization", { translation: 3 }),
  q("synonym", "voiceover", { tts: 3 }),
  q("synonym", "equities", { stocks: 3 }),
  q("synonym", "crawler", { scraping: 3 }),
  q("synonym", "KYC watchlist", { sanctions: 3, face: 1 }),
  q("synonym", "coordinates from address", { geocoding: 3, address: 1 }),
  q("synonym", "courier tracking", { parcel: 3 }),
  q("synonym", "text recognition", { ocr: 3 }),
  q("synonym", "smog", { airquality: 3 }),
  q("synonym", "business registry", { vat: 3 }),
  q("synonym", "calorie counter", { nutrition: 3 }),
  q("synonym", "headlines", { news: 3 }),
  q("synonym", "2D barcode maker", { qrcode: 3 }),
  q("synonym", "job board", { jobs: 3 }),
  // Typos.
  q("typo", "wether forcast berlin", { weather: 3 }),
  q("typo", "transcibe audio", { transcription: 3 }),
  q("typo", "exchnage rate dollar euro", { fx: 3 }),
  q("typo", "translat to german", { translation: 3 }),
  q("typo", "emial verification", { email: 3 }),
  q("typo", "geocodeing", { geocoding: 3 }),
  q("typo", "crypo price", { crypto: 3 }),
  q("typo", "screenshoot of url", { screenshot: 3 }),
  q("typo", "backround removal", { bgremove: 3 }),
  q("typo", "sentimant analysis", { sentiment: 3 }),
  // Short.
  q("short", "ocr", { ocr: 3, pdf: 1 }),
  q("short", "weather", { weather: 3 }),
  q("short", "vat", { vat: 3 }),
  q("short", "stt", { transcription: 3 }),
  q("short", "aqi", { airquality: 3 }),
  q("short", "whois", { whois: 3 }),
  // Long, with context an agent adds.
  q(
    "long",
    "I am an agent booking deliveries and need to confirm a customer's shipping address actually exists before dispatch",
    { address: 3, geocoding: 1 },
  ),
  q("long", "our support team receives tickets in Japanese and Korean, we need them in English automatically", {
    translation: 3,
  }),
  q("long", "I have a folder of scanned contracts and need their content searchable", { ocr: 3, pdf: 2 }),
  q(
    "long",
    "for an accounting workflow, check that the supplier on this invoice is a real registered business with a valid tax id",
    { vat: 3, sanctions: 1 },
  ),
  q("long", "record sales calls and produce a written log of who said what", { transcription: 3 }),
  q("long", "a trading bot that needs the dollar value of tokens on Base every few seconds", { crypto: 3 }),
  q("long", "we are building a travel app that tells users about delays and which gate to go to", { flights: 3 }),
  q("long", "generate marketing banners from a short description of the product and the mood", { imagegen: 3 }),
  q("long", "collect every article that mentions our brand so we can react to bad press", { news: 3, sentiment: 1 }),
  q("long", "before sending a newsletter remove addresses that do not exist or are disposable", { email: 3 }),
  // Brand look-alikes: the verified original must come first.
  q("brand", "ScribeFlow", { transcription: 1 }, "ScribeFlow"),
  q("brand", "scribeflow transcription api", { transcription: 1 }, "ScribeFlow"),
  q("brand", "Skyline Weather", { weather: 1 }, "Skyline Weather"),
  q("brand", "ledgerly fx rates", { fx: 1 }, "Ledgerly FX"),
  q("brand", "PixelForge image generator", { imagegen: 1 }, "PixelForge"),
  // Nothing in the catalog answers these.
  q("none", "book a table for two at an italian restaurant"),
  q("none", "adopt a puppy"),
  q("none", "knitting patterns for a winter scarf"),
  q("none", "medieval castle architecture history"),
  q("none", "repair a leaking faucet"),
];

/** A query's grade of each listing of the graded catalog (absent: 0); a brand query grades its look-alikes 0. */
export function gradesOf(query: BenchQuery, catalog: BenchListing[]): Map<string, number> {
  const grades = new Map<string, number>();
  for (const listing of catalog) {
    let grade = query.rel[listing.category] ?? 0;
    if (query.brand) {
      if (listing.copies === query.brand) grade = 0;
      else if (listing.serviceName === query.brand) grade = 3;
    }
    if (grade > 0) grades.set(listing.id, grade);
  }
  return grades;
}

// The web catalog in a real browser: Debian's Chromium, headless, driven by playwright-core. It
// searches, filters, pages, opens a listing, runs the dry-run form against a loopback seller and
// follows every footer link; axe-core checks every page; hostile listings stay text. Screenshots at
// 375 and 1440 px go to test-results/web/. Without a Chromium the suite skips, saying so.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { testDatabaseKinds } from "../storage/databases.js";
import {
  challenge,
  challengeAnswer,
  requirement,
  SELLER_PAY_TO,
  startSeller,
  type Seller,
} from "../support/sellers.js";
import { listingPage } from "../../src/web/listing-page.js";
import { AGENT_DOCUMENTS } from "../../src/web/layout.js";
import { historyDocument } from "./history-fixture.js";

/** CHROMIUM_PATH, else Debian's chromium (apt-get install chromium). */
const CHROMIUM = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
  (path) => path && existsSync(path),
);
if (!CHROMIUM && process.env.REQUIRE_CHROMIUM) {
  throw new Error(
    "REQUIRE_CHROMIUM is set (.ci/run) but no Chromium was found: apt-get install -y --no-install-recommends chromium, or set CHROMIUM_PATH.",
  );
}
if (!CHROMIUM) {
  console.warn(
    "test/web/browser.test.ts SKIPPED: no Chromium found (set CHROMIUM_PATH, or install Debian's: apt-get install -y --no-install-recommends chromium).",
  );
}

/** Flags that keep a headless Chromium off the network (it would otherwise wait on Google's services). */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const ARTIFACTS = join(process.cwd(), "test-results", "web");
const HOSTILE_SCRIPT = "<script>alert(1)</script> sells nothing";
const HOSTILE_IMG = `"><img src=x onerror="alert(2)"> sells nothing either`;

interface AxeViolation {
  id: string;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core's violations on the page as it is now (WCAG 2.x A and AA, and best practices). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations;
  });
  return violations.map(
    (violation) =>
      `${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
  );
}

async function screenshots(page: Page, name: string): Promise<void> {
  for (const width of [375, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    // Readable at this width: nothing wider than the viewport.
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `${name} scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe.skipIf(!CHROMIUM)("web catalog in Chromium", () => {
  let market: CatalogServer;
  let seller: Seller;
  let browser: Browser;
  /** Pages as served: the Content-Security-Policy is enforced, and any violation is recorded. */
  let strict: BrowserContext;
  /** The same pages with the policy off (axe is injected as an inline script; escaping alone must hold). */
  let lax: BrowserContext;
  const cspViolations: string[] = [];
  const dialogs: string[] = [];
  let hostileIds: string[] = [];

  const url = (path: string) => `${market.server.url}${path}`;

  async function open(context: BrowserContext, path: string): Promise<Page> {
    const page = await context.newPage();
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on("console", (message) => {
      if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(`${path}: ${message.text()}`);
    });
    const response = await page.goto(url(path));
    expect(response?.status()).toBeLessThan(500);
    return page;
  }

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    market = await startCatalogServer(testDatabaseKinds()[0]!, {
      ALLOW_LOOPBACK_SELLERS: "true",
      PAYMENT_RATE_PER_CLIENT: "100000",
      PROBE_RATE_PER_CLIENT: "1000",
      PROBE_RATE_PER_HOST: "1000",
    });
    const asset = market.server.contexts.listings.market.asset;
    seller = await startSeller(() =>
      challengeAnswer(challenge([requirement({ payTo: SELLER_PAY_TO, amount: "30000", asset })])),
    );
    for (let n = 0; n < 22; n++)
      await market.list({
        description: `Generic data endpoint number ${n} for agents`,
        priceUsdc: `0.0${(n % 9) + 1}`,
      });
    await market.list({
      description: "Weather forecasts for any city on earth, hourly",
      priceUsdc: "0.005",
      resource: "https://weather.example.com/forecast",
    });
    // The one healthy listing, with a service name and tags: it comes first whatever the order.
    const tides = await market.list({
      description: "Tide tables and coastal water levels for any port",
      priceUsdc: "0.01",
      metadata: { serviceName: "Tide Tables", tags: ["ocean", "tides"] },
    });
    await market.server.contexts.listings.health.recordListingProbe(tides.id, 80, market.clock.now());
    hostileIds = [
      (await market.list({ description: HOSTILE_SCRIPT })).id,
      (await market.list({ description: HOSTILE_IMG })).id,
    ];
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 });
    strict = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    lax = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await seller?.close();
    await market?.close();
  });

  it("home: searches by text through the form, with no axe violation, at 375 and 1440 px", async () => {
    const page = await open(strict, "/");
    await expect.poll(() => page.locator("ul.cards > li").count()).toBe(20);
    await screenshots(page, "home");
    await page.getByLabel("Search", { exact: true }).fill("weather");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/query=weather/);
    const cards = page.locator("ul.cards > li");
    await expect.poll(() => cards.count()).toBe(1);
    expect(await cards.first().textContent()).toContain("Weather forecasts for any city on earth");
    expect(await page.getByRole("link", { name: /\/discovery\/search\?query=weather/ }).count()).toBe(1);
    expect(await axeViolations(await open(lax, "/"))).toEqual([]);
    expect(await axeViolations(await open(lax, "/?query=weather"))).toEqual([]);
    expect(await axeViolations(await open(lax, "/?query=nothing-matches-this"))).toEqual([]);
  });

  it("home: healthy first in every order, then filters by health, price, tags and verified owner", async () => {
    const page = await open(strict, "/");
    const titles = () => page.locator("ul.cards > li h3").allTextContents();
    // The one healthy listing leads, though newer ones were listed after it.
    expect((await titles())[0]).toBe("Tide Tables");
    await page.getByLabel("Order").selectOption("price");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/sort=price/);
    const cards = page.locator("ul.cards > li");
    expect(await cards.first().textContent()).toContain("Tide Tables");
    expect(await cards.nth(1).textContent()).toContain("0.005 USDC");
    expect(await page.locator("p.muted").first().textContent()).toContain("Healthy first");
    await page.getByLabel("Order").selectOption("priceDesc");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/sort=priceDesc/);
    expect((await titles())[0]).toBe("Tide Tables");
    // After the one healthy listing, the rest dearest first.
    const rest = (await page.locator("ul.cards > li strong").allTextContents())
      .slice(1)
      .map((price) => Number.parseFloat(price));
    expect(rest[0]).toBe(0.09);
    expect(rest).toEqual([...rest].sort((a, b) => b - a));
    await page.getByLabel("Order").selectOption("popular");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/sort=popular/);
    expect((await titles())[0]).toBe("Tide Tables");

    // The other filters are folded away until opened.
    const health = page.getByLabel("Health", { exact: true });
    expect(await health.isVisible()).toBe(false);
    await page.locator("details.more > summary").click();
    await health.selectOption("healthy");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/health=healthy/);
    expect(await titles()).toEqual(["Tide Tables"]);
    expect(await page.locator("h2#results").textContent()).toBe("1 listings");
    // A filter set keeps the fold open and says how many are set.
    expect(await health.isVisible()).toBe(true);
    expect(await health.inputValue()).toBe("healthy");
    expect(await page.locator("details.more > summary").textContent()).toBe("Filters (1 set)");

    await health.selectOption("any");
    await page.getByLabel("Min price (USDC)").fill("0.005");
    await page.getByLabel("Max price (USDC)").fill("0.009");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/maxPrice=0.009/);
    const prices = (await page.locator("ul.cards > li strong").allTextContents()).map((price) =>
      Number.parseFloat(price),
    );
    expect(prices.length).toBeGreaterThan(0);
    expect(prices.every((price) => price >= 0.005 && price <= 0.009)).toBe(true);
    await page.getByRole("link", { name: "Clear the filters" }).click();
    await page.waitForURL((address) => address.search === "");

    // A tag chip filters the catalog by its tag.
    await page.getByRole("list", { name: "Tags" }).getByRole("link", { name: "ocean" }).click();
    await page.waitForURL(/tags=ocean/);
    expect(await titles()).toEqual(["Tide Tables"]);
    expect(await page.getByRole("textbox", { name: /^Tags/ }).inputValue()).toBe("ocean");
    expect(await axeViolations(await open(lax, "/?tags=ocean&minPrice=0.001"))).toEqual([]);
    // Its page is headed by the icon, the name and the chips, and passes axe too.
    const tidesPage = await open(lax, (await page.locator("ul.cards > li h3 a").getAttribute("href"))!);
    expect(await tidesPage.locator("h1").textContent()).toBe("Tide Tables");
    expect(await tidesPage.getByRole("list", { name: "Tags" }).getByRole("link").allTextContents()).toEqual([
      "ocean",
      "tides",
    ]);
    await screenshots(tidesPage, "listing-with-tags");
    expect(await axeViolations(tidesPage)).toEqual([]);

    await page.getByRole("textbox", { name: /^Tags/ }).fill("");
    await page.getByLabel("Verified owners only").check();
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/verified=true/);
    expect(await page.locator("ul.cards > li").count()).toBe(0);
    expect(await page.getByLabel("Verified owners only").isChecked()).toBe(true);
  });

  it("home at 375 px shows results first: the filters folded, the summary after the cards; at 1440 px the summary is beside them", async () => {
    const page = await open(strict, "/");
    await page.setViewportSize({ width: 375, height: 667 });
    const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!;
    await page.screenshot({ path: join(ARTIFACTS, "home-first-screen-375.png") });
    const firstCard = await box("ul.cards > li");
    expect(firstCard.y, "the first card starts on the first screen").toBeLessThan(667 - 100);
    expect(await page.getByLabel("Health", { exact: true }).isVisible()).toBe(false);
    const cards = await box("ul.cards");
    const summary = await box("aside.summary");
    expect(summary.y).toBeGreaterThanOrEqual(cards.y + cards.height);

    await page.setViewportSize({ width: 1440, height: 900 });
    const wideCards = await box("ul.cards");
    const wideSummary = await box("aside.summary");
    expect(wideSummary.x).toBeGreaterThanOrEqual(wideCards.x + wideCards.width);
    expect(wideSummary.y).toBeLessThan(wideCards.y + 100);
    const text = (await page.locator("aside.summary").textContent())!;
    expect(text).toContain("At a glance");
    expect(text).toContain("Newest");
    expect(text).toContain("Most used (30 days)");
    expect(await page.locator("aside.summary svg[role=img]").count()).toBeGreaterThanOrEqual(1);
    // Cards carry a letter icon, the name, health and usage.
    const tides = page.locator("ul.cards > li").first();
    expect(await tides.locator(".icon").textContent()).toBe("T");
    expect(await tides.textContent()).toContain("healthy, 100% up in 24 h");
    expect(await tides.textContent()).toContain("no sales counted yet");
  });

  it("home: pages with Next and Previous", async () => {
    const page = await open(strict, "/");
    const first = await page.locator("ul.cards > li h3").allTextContents();
    await page.getByRole("link", { name: /Next/ }).click();
    await page.waitForURL(/offset=20/);
    const second = await page.locator("ul.cards > li h3").allTextContents();
    expect(second).toHaveLength(6);
    expect(second.some((title) => first.includes(title))).toBe(false);
    expect(await page.locator(".pager").textContent()).toContain("21–26 of 26");
    await page.getByRole("link", { name: /Previous/ }).click();
    await page.waitForURL((address) => !address.search.includes("offset"));
    expect(await page.locator("ul.cards > li h3").allTextContents()).toEqual(first);
  });

  it("opens a listing from its card: every field, the commands and the JSON twin", async () => {
    const page = await open(strict, "/?query=weather");
    // A card without a service name is titled by its host and first path segment; its description follows.
    await page.getByRole("link", { name: "weather.example.com/forecast" }).click();
    await page.waitForURL(/\/listing\//);
    const id = page.url().split("/listing/")[1]!;
    expect(await page.locator("h1").textContent()).toContain("Weather forecasts");
    const text = (await page.locator("main").textContent())!;
    for (const shown of [
      "https://weather.example.com/forecast",
      "0.005 USDC per call",
      id,
      `npx x402-market buy ${id} --max 0.005`,
      "curl -i -X POST",
    ]) {
      expect(text).toContain(shown);
    }
    expect(text).toContain("No re-probe history yet");
    await screenshots(page, "listing");
    // At 375 px the payment table keeps a network id on one line (it scrolls in its own box instead).
    await page.setViewportSize({ width: 375, height: 900 });
    const networkLines = await page.evaluate(() => {
      const cell = [...document.querySelectorAll("td")].find((td) => td.textContent?.startsWith("eip155:"));
      const range = document.createRange();
      range.selectNodeContents(cell!);
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
    });
    expect(networkLines).toBe(1);
    await page.setViewportSize({ width: 1280, height: 900 });
    const twin = page.getByRole("link", { name: `/listings/${id}` });
    const navigation = page.waitForNavigation();
    await twin.click();
    expect((await navigation)?.status()).toBe(200);
    expect(JSON.parse((await page.locator("body").textContent())!)).toMatchObject({
      item: { metadata: { listingId: id } },
    });
    expect(await axeViolations(await open(lax, `/listing/${id}`))).toEqual([]);
  });

  it("renders health and usage history as charts that pass axe", async () => {
    const html = listingPage({
      siteName: "Test market",
      marketUrl: market.server.url,
      document: historyDocument(),
      jsonTwin: "/listings/x",
    });
    const page = await lax.newPage();
    await page.setContent(html);
    expect(await page.locator("svg[role=img]").count()).toBe(2);
    expect(await page.locator("svg[role=img] rect").count()).toBe(7 + 7);
    await screenshots(page, "listing-history");
    expect(await axeViolations(page)).toEqual([]);
  });

  it("a missing listing is an HTML page that passes axe", async () => {
    const page = await open(lax, "/listing/00000000-0000-4000-8000-000000000000");
    expect(await page.locator("h1").textContent()).toBe("Listing not found");
    expect(await axeViolations(page)).toEqual([]);
  });

  it("sell: the dry-run form reports every check from a loopback seller, passing and failing", async () => {
    const page = await open(strict, "/sell.html");
    await screenshots(page, "sell");
    // The form comes before the dense steps, on the first screen at 375 px.
    await page.setViewportSize({ width: 375, height: 900 });
    const form = (await page.locator("#validate-form").boundingBox())!;
    expect(form.y).toBeLessThan(900);
    expect(form.y).toBeLessThan((await page.locator("h2#steps").boundingBox())!.y);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByLabel(/^Resource/).fill(`${seller.url}/api/summarise`);
    await page.getByLabel("Method").selectOption("POST");
    await page.getByLabel(/^Price per call/).fill("0.03");
    await page.getByLabel(/^Description/).fill("Summarises any public web page into five bullet points.");
    await page.getByLabel("Your payTo address").fill(SELLER_PAY_TO);
    await page.getByRole("button", { name: "Validate" }).click();
    const report = page.locator("#validate-report");
    await expect.poll(() => report.textContent(), { timeout: 15_000 }).toContain("Ready to list");
    const checks = await report.locator("li").allTextContents();
    expect(checks.map((check) => /^pass ([\w-]+)/.exec(check)?.[1])).toEqual([
      "schema",
      "network",
      "price",
      "description",
      "sellerPayTo",
      "resource",
      "seller-probe",
    ]);
    expect(checks.every((check) => check.startsWith("pass"))).toBe(true);
    expect(seller.requests).toContain("POST /api/summarise");

    await page.getByLabel("Your payTo address").fill("0x1111111111111111111111111111111111111111");
    await page.getByRole("button", { name: "Validate" }).click();
    await expect.poll(() => report.textContent(), { timeout: 15_000 }).toContain("Not ready (HTTP 422)");
    expect(await report.textContent()).toContain("pay_to_mismatch");
    await screenshots(page, "sell-report");

    const axePage = await open(lax, "/sell.html");
    expect(await axeViolations(axePage)).toEqual([]);
  });

  it("follows every footer link to its agent document", async () => {
    const page = await open(strict, "/");
    const footer = page.locator("footer nav a");
    expect(await footer.count()).toBe(AGENT_DOCUMENTS.length);
    for (const { href, label } of AGENT_DOCUMENTS) {
      await page.goto(url("/"));
      const navigation = page.waitForNavigation();
      await page.locator("footer").getByRole("link", { name: label }).click();
      const response = await navigation;
      expect(response?.status(), href).toBe(200);
      expect(new URL(page.url()).pathname).toBe(href);
    }
  });

  it("keyboard: the first Tab reaches the skip link, which moves focus to the content", async () => {
    const page = await open(strict, "/");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
  });

  it("hostile descriptions render as text: no dialog, no injected element, with and without the CSP", async () => {
    for (const context of [strict, lax]) {
      for (const path of ["/", ...hostileIds.map((id) => `/listing/${id}`)]) {
        const page = await open(context, path);
        await page.waitForLoadState("load");
        expect(await page.locator('img[src="x"]').count(), path).toBe(0);
        expect(await page.locator("script").count(), path).toBe(0);
        const text = (await page.locator("main").textContent())!;
        if (path === "/" || path.endsWith(hostileIds[0]!)) expect(text).toContain(HOSTILE_SCRIPT);
        if (path === "/" || path.endsWith(hostileIds[1]!)) expect(text).toContain(HOSTILE_IMG);
      }
    }
    expect(await axeViolations(await open(lax, `/listing/${hostileIds[1]}`))).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(dialogs).toEqual([]);
  });

  it("no page broke its own Content-Security-Policy", () => {
    expect(cspViolations).toEqual([]);
  });
});

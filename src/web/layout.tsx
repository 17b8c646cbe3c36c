// The frame of every page: head, skip link, site header and navigation, main landmark, and the
// footer with the agent documents. Pages are rendered to a string with preact-render-to-string.
import type { ComponentChildren, VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { PAGE_SCRIPT, PAGE_STYLE } from "./assets.js";

export interface PageFrame {
  title: string;
  /** The marketplace's name (MarketFacts.name). */
  siteName: string;
  /** What the page is, for search engines and link previews. */
  description: string;
  /** Path of the JSON document this page shows. */
  jsonTwin: string;
  /** The page runs the dry-run script (the sell page). */
  script?: boolean;
  children: ComponentChildren;
}

/** The agent documents the footer links: every page names them. */
export const AGENT_DOCUMENTS = [
  { href: "/llms.txt", label: "llms.txt" },
  { href: "/openapi.json", label: "OpenAPI contract" },
  { href: "/mcp", label: "MCP server" },
  { href: "/.well-known/agent-card.json", label: "A2A agent card" },
] as const;

function Frame({ title, siteName, description, jsonTwin, script, children }: PageFrame): VNode {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · ${siteName}`}</title>
        <meta name="description" content={description} />
        <link rel="alternate" type="application/json" href={jsonTwin} />
        <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
        {/* Feed autodiscovery: a reader given any page finds the new-listings feeds. */}
        <link
          rel="alternate"
          type="application/feed+json"
          title={`${siteName}: new listings (JSON Feed)`}
          href="/feed.json"
        />
        <link
          rel="alternate"
          type="application/atom+xml"
          title={`${siteName}: new listings (Atom)`}
          href="/feed.atom"
        />
        <link rel="alternate" type="application/rss+xml" title={`${siteName}: new listings (RSS)`} href="/feed.rss" />
        {/* A constant of src/web/assets.ts, allowed by its hash in the Content-Security-Policy. */}
        <style dangerouslySetInnerHTML={{ __html: PAGE_STYLE }} />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site">
          <div class="wrap">
            <a class="brand" href="/">
              {siteName}
            </a>
            <nav aria-label="Site">
              <ul>
                <li>
                  <a href="/">Catalog</a>
                </li>
                <li>
                  <a href="/sell.html">Sell</a>
                </li>
                <li>
                  <a href="/buy.json">Buy (JSON)</a>
                </li>
              </ul>
            </nav>
          </div>
        </header>
        <main id="main" class="wrap" tabIndex={-1}>
          {children}
          <p class="twin">
            This page as JSON: <a href={jsonTwin}>{jsonTwin}</a>
          </p>
        </main>
        <footer class="site">
          <div class="wrap">
            <nav aria-label="For agents">
              <ul>
                {AGENT_DOCUMENTS.map((link) => (
                  <li key={link.href}>
                    <a href={link.href}>{link.label}</a>
                  </li>
                ))}
              </ul>
            </nav>
          </div>
        </footer>
        {script && <script dangerouslySetInnerHTML={{ __html: PAGE_SCRIPT }} />}
      </body>
    </html>
  );
}

/** A whole HTML document. */
export function renderPage(frame: PageFrame): string {
  return `<!doctype html>${renderToString(<Frame {...frame} />)}`;
}

// The catalog bench's targets (issue 12), computed from the rows of the same run: PASS or MISS with
// the figures beside, never asserted (a shared machine's noise would make them flaky).
export type Row = Record<string, string | number>;

export interface Check {
  database: string;
  service: string;
  target: string;
  figures: string;
  result: "PASS" | "MISS" | "n/a";
}

const SEARCH = "search, distinct queries";
const num = (value: string | number | undefined) => (typeof value === "number" ? value : Number.NaN);
const verdict = (ok: boolean | undefined): Check["result"] => (ok === undefined ? "n/a" : ok ? "PASS" : "MISS");

export function targets(rows: Row[], sizes: number[]): Check[] {
  const checks: Check[] = [];
  const smallest = Math.min(...sizes);
  const largest = Math.max(...sizes);
  const services = new Set(
    rows.map((row) => `${row.database}\n${/ \[baseline [^\]]+\]$/.exec(String(row.scenario))?.[0] ?? ""}`),
  );
  for (const key of services) {
    const [database, label] = key.split("\n") as [string, string];
    const mine = rows.filter(
      (row) =>
        row.database === database &&
        String(row.scenario).endsWith(label) &&
        (label !== "" || !/\[baseline /.test(String(row.scenario))),
    );
    const find = (size: number, scenario: string, urls: string) =>
      mine.find((row) => row.listings === size && String(row.scenario).startsWith(scenario) && row.URLs === urls);
    const add = (target: string, figures: string, ok: boolean | undefined) =>
      checks.push({ database, service: label.trim() || "this tree", target, figures, result: verdict(ok) });
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    const across = smallest !== largest;

    const pageSmall = num(find(smallest, "resources page", "distinct")?.["p50 ms"]);
    const pageLarge = num(find(largest, "resources page", "distinct")?.["p50 ms"]);
    add(
      `uncached resources page p50 at ${largest} within 1.5x of ${smallest}`,
      `${pageLarge} / ${pageSmall} ms = ${ratio(pageLarge, pageSmall)}`,
      across ? pageLarge <= 1.5 * Math.max(pageSmall, 1) : undefined,
    );

    const cachedRate = num(find(largest, "resources page (", "same")?.["req/s"]);
    const uncachedRate = num(find(largest, "resources page", "distinct")?.["req/s"]);
    add(
      `uncached resources page req/s at ${largest} >= 5% of the cached page's`,
      `${uncachedRate} / ${cachedRate} = ${((uncachedRate / cachedRate) * 100).toFixed(1)}%`,
      uncachedRate >= 0.05 * cachedRate,
    );

    const search10k = find(10_000, SEARCH, "distinct");
    const searchCpu =
      num(search10k?.["service CPU ms/req"]) + (database === "postgres" ? num(search10k?.["DB ms/req"]) || 0 : 0);
    add(
      `uncached search CPU <= 0.35 ms/request at 10000${database === "postgres" ? " (service + backends)" : ""}`,
      search10k ? `${searchCpu.toFixed(3)} ms` : "10000 not run",
      search10k ? searchCpu <= 0.35 : undefined,
    );

    const searchSmall = num(find(smallest, SEARCH, "distinct")?.["p50 ms"]);
    const searchLarge = num(find(largest, SEARCH, "distinct")?.["p50 ms"]);
    add(
      `uncached search p50 at ${largest} within 2x of ${smallest}`,
      `${searchLarge} / ${searchSmall} ms = ${ratio(searchLarge, searchSmall)}`,
      across ? searchLarge <= 2 * Math.max(searchSmall, 1) : undefined,
    );

    const deep = num(find(largest, "resources offset size-50", "distinct")?.["p50 ms"]);
    const first = num(find(largest, "resources offset 0", "distinct")?.["p50 ms"]);
    add(
      `uncached offset size-50..size-20 p50 at ${largest} within 2x of offset 0`,
      `${deep} / ${first} ms = ${ratio(deep, first)}`,
      deep <= 2 * Math.max(first, 1),
    );

    const rss = num(find(largest, "service resident memory", "")?.rssPeakMiB);
    add(
      `service RSS < 250 MB at ${largest} under the uncached loads`,
      `${rss} MiB (${(rss * 1.048576).toFixed(0)} MB)`,
      rss * 1.048576 < 250,
    );

    const errors = mine.reduce((sum, row) => sum + (num(row.errors) || 0), 0);
    const serverErrors = mine.reduce((sum, row) => sum + (num(row["5xx"]) || 0), 0);
    add("no 5xx, no errors", `${serverErrors} 5xx, ${errors} errors`, errors === 0 && serverErrors === 0);
  }
  return checks;
}

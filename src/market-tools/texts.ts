// The text each market tool answers beside its structured result: what an agent reads first.
import type { components } from "../../generated/openapi.js";
import type { DiscoveryDocument } from "../documents/discovery.js";
import type { ValidationReport } from "../listing/listing-checks.js";

type Schemas = components["schemas"];

export function catalogText(document: DiscoveryDocument): string {
  const { items, pagination } = document;
  const scope = document.query ? ` matching ${JSON.stringify(document.query)}` : "";
  if (items.length === 0) {
    const near = document.nearMisses?.length
      ? ` Nothing matches well enough to buy; closest, not answers: ${document.nearMisses.map((item) => `${item.serviceName ?? item.resource} (${item.resource})`).join(", ")}.`
      : "";
    return `No listings${scope} at offset ${pagination.offset} (total ${pagination.total}).${near}`;
  }
  const lines = items.map((item, index) => {
    const pay = item.accepts[0];
    const { health } = item.metadata;
    const failing = health.failureCode ? ` (${health.failureCode})` : "";
    const indexed =
      item.metadata.source === "indexed"
        ? `; indexed from ${item.metadata.provenance?.source ?? "another catalog"}, not a paid listing`
        : "";
    const match = item.metadata.match ? `[${item.metadata.match} match] ` : "";
    return `${pagination.offset + index + 1}. ${match}${item.description}\n   ${item.metadata.priceUsdc} USDC, ${item.method} ${item.resource}, pays ${pay?.payTo ?? item.metadata.salePayTo} on ${pay?.network ?? "?"}; health ${health.status}${failing}${indexed}`;
  });
  const next = pagination.nextCursor
    ? `\nNext page: call list_market again with cursor ${JSON.stringify(pagination.nextCursor)}.`
    : "\nThis is the last page.";
  return (
    `${items.length} of ${pagination.total} listings${scope} (from ${pagination.offset + 1}):\n${lines.join("\n")}${next}\n` +
    "Buy from each item's resource directly: it answers HTTP 402; pay its accepts[0] (the seller), not the marketplace."
  );
}

export interface PlaybookLike {
  title: string;
  summary: string;
  requirements?: string[];
  steps: Schemas["PlaybookStep"][];
  notes?: string[];
  policy: string[];
}

export function playbookText(playbook: PlaybookLike): string {
  const list = (title: string, lines: string[] | undefined) =>
    lines?.length ? [`${title}:`, ...lines.map((line) => `- ${line}`)] : [];
  const steps = playbook.steps.map((step) => {
    const call = step.method && step.url ? `\n   ${step.method} ${step.url}` : "";
    return `${step.step}. ${step.title}: ${step.action}${call}\n   Expect: ${step.expect}`;
  });
  return [
    `${playbook.title}`,
    playbook.summary,
    ...list("You need", playbook.requirements),
    "Steps:",
    ...steps,
    ...list("Notes", playbook.notes),
    ...list("Policy", playbook.policy),
  ].join("\n");
}

export function reportText(report: ValidationReport): string {
  const lines = report.checks.map(
    (check) =>
      `${check.ok ? "ok  " : "FAIL"} ${check.name}${check.code ? ` (${check.code})` : ""}: ${check.reason ?? ""}`,
  );
  const verdict = report.ok
    ? "Every check passed: this body is ready for POST /listings (the fee is paid there, with x402)."
    : `${report.checks.filter((check) => !check.ok).length} check(s) failed: fix them before paying for POST /listings.`;
  return `${verdict}\n${lines.join("\n")}\nNothing was charged and nothing was saved.`;
}

// What every command shares: global options, output (text or --json), errors and exit codes,
// the payer's key, and the confirmation before a payment.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { InvalidArgumentError, type Command } from "commander";
import type { Hex } from "viem";
import {
  createMarketplaceClient,
  DEFAULT_MARKETPLACE_URL,
  ToolkitError,
  usdcToAtomic,
  type MarketplaceClient,
  type Quote,
} from "../client/index.js";

export const EXIT = { ok: 0, failed: 1, usage: 2, refused: 3, paymentFailed: 4 } as const;

/** A command line that cannot work as given (exit 2). */
export class UsageError extends Error {}

export interface GlobalOptions {
  url: string;
  json: boolean;
}

export function globalsOf(command: Command): GlobalOptions {
  const { url, json } = command.optsWithGlobals<{ url?: string; json?: boolean }>();
  return {
    url: (url ?? process.env.MARKETPLACE_URL ?? DEFAULT_MARKETPLACE_URL).replace(/\/+$/, ""),
    json: json ?? false,
  };
}

export function clientFor(globals: GlobalOptions): MarketplaceClient {
  return createMarketplaceClient({ baseUrl: globals.url });
}

/** Prints `value` as one JSON line in --json mode, else the text form. */
export function output(globals: GlobalOptions, value: unknown, text: () => string): void {
  process.stdout.write(globals.json ? `${JSON.stringify(value)}\n` : `${text()}\n`);
}

/** Progress and notes for people: stderr, so --json stdout stays parseable. */
export function progress(message: string): void {
  process.stderr.write(`… ${message}\n`);
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof ToolkitError)
    return { request: EXIT.failed, refused: EXIT.refused, payment: EXIT.paymentFailed }[error.kind];
  return EXIT.failed;
}

export function reportError(error: unknown, json: boolean): void {
  const message = error instanceof Error ? error.message : String(error);
  const hint = error instanceof ToolkitError ? error.hint : error instanceof UsageError ? "see --help" : undefined;
  process.stderr.write(`x402-market: ${message}\n${hint ? `  what to do: ${hint}\n` : ""}`);
  if (json) {
    const kind = error instanceof ToolkitError ? error.kind : error instanceof UsageError ? "usage" : "unexpected";
    const details = error instanceof ToolkitError ? error.details : undefined;
    process.stdout.write(
      `${JSON.stringify({ error: kind, message, ...(hint && { hint }), ...(details !== undefined && { details }) })}\n`,
    );
  }
}

// Option parsers: a bad value is a usage error (exit 2) naming the option.
export function usdcOption(value: string): string {
  const atomic = usdcToAtomic(value);
  if (atomic === null) throw new InvalidArgumentError("expected a USDC amount such as 0.05 (at most 6 decimals)");
  return atomic;
}

export function positiveInteger(max: number) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < 1 || number > max)
      throw new InvalidArgumentError(`expected a whole number from 1 to ${max}`);
    return number;
  };
}

export function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError("expected a number above 0");
  return number;
}

export interface PayerFlags {
  chainFile?: string;
  buyer?: number;
  yes?: boolean;
}

/** X402_PRIVATE_KEY, or buyer N of a local chain file (`npm start` writes .dev/chain.json). */
export function payerKey(flags: PayerFlags): Hex {
  if (flags.chainFile) {
    let buyers: Array<{ privateKey: Hex }>;
    try {
      ({ buyers } = JSON.parse(readFileSync(flags.chainFile, "utf8")) as { buyers: Array<{ privateKey: Hex }> });
    } catch (error) {
      throw new UsageError(
        `cannot read the chain file ${flags.chainFile}: ${(error as Error).message} (npm start writes .dev/chain.json)`,
      );
    }
    const buyer = buyers[flags.buyer ?? 0];
    if (!buyer)
      throw new UsageError(
        `the chain file ${flags.chainFile} has no buyer ${flags.buyer ?? 0} (it has ${buyers.length})`,
      );
    return buyer.privateKey;
  }
  const key = process.env.X402_PRIVATE_KEY;
  if (!key)
    throw new UsageError(
      "no payer key: set X402_PRIVATE_KEY, or on the local chain pass --chain-file .dev/chain.json --buyer 0",
    );
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new UsageError("X402_PRIVATE_KEY must be 0x followed by 64 hex digits");
  return key as Hex;
}

export function describeQuote(quote: Quote): string {
  const { requirement } = quote;
  return [
    `The ${quote.purpose} for ${quote.resource}:`,
    `  ${quote.amountUsdc} USDC (${requirement.amount} atomic units, scheme ${requirement.scheme})`,
    `  paid to ${requirement.payTo} on ${requirement.network}, token ${requirement.asset}`,
  ].join("\n");
}

/** Shows the quote on stderr and asks on the terminal, unless --yes; without a terminal it refuses. */
export function confirmer(flags: PayerFlags): (quote: Quote) => Promise<boolean> {
  return async (quote) => {
    process.stderr.write(`${describeQuote(quote)}\n`);
    if (flags.yes) return true;
    if (!process.stdin.isTTY) {
      throw new ToolkitError(
        "refused",
        "refusing to pay without confirmation: there is no terminal to ask on",
        "pass --yes to pay without asking",
      );
    }
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await prompt.question("Pay? [y/N] ")).trim());
    } finally {
      prompt.close();
    }
  };
}

export function buyerIndex(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError("expected a buyer index: 0, 1, 2, ...");
  return number;
}

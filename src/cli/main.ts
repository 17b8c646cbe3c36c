#!/usr/bin/env node
// x402-market: the command line of the toolkit. Exit codes: 0 ok, 1 failed request or unexpected
// error, 2 usage error, 3 refused (not confirmed, over the cap, challenge mismatch), 4 payment failed.
import { Command, CommanderError } from "commander";
import { buyCommand } from "./buy-command.js";
import { searchCommand, showCommand, statusCommand, watchCommand } from "./catalog-commands.js";
import { listCommand, validateCommand } from "./listing-commands.js";
import { claimCommand, delistCommand, refreshCommand, updateCommand } from "./owner-commands.js";
import { EXIT, exitCodeOf, reportError } from "./support.js";
import { eventsCommand, webhooksCommand } from "./webhook-commands.js";

const EXIT_CODES_HELP = `
Environment:
  MARKETPLACE_URL     the service (default http://localhost:8402; --url wins)
  X402_PRIVATE_KEY    the payer's key for list and buy, the owner's (sellerPayTo's) for claim, update
                      and delist (or --chain-file .dev/chain.json --buyer 0)

Exit codes:
  0  ok
  1  a request failed, a listing failed validation, or an unexpected error
  2  usage error
  3  refused: not confirmed (no terminal and no --yes), over the cap, the seller's terms differ from the catalog,
     or an owner operation was refused (not the owner's key, a used nonce, a passed deadline)
  4  the payment failed`;

export function buildProgram(): Command {
  const program = new Command("x402-market")
    .description("Buy and sell x402-paid endpoints on the marketplace")
    .option("--url <url>", "marketplace base URL (default MARKETPLACE_URL or http://localhost:8402)")
    .option("--json", "print results as JSON on stdout (progress and errors go to stderr)")
    .exitOverride()
    .showHelpAfterError("(add --help for usage)")
    .configureHelp({ showGlobalOptions: true })
    .addHelpText("after", EXIT_CODES_HELP);
  for (const command of [
    validateCommand(),
    listCommand(),
    searchCommand(),
    showCommand(),
    statusCommand(),
    buyCommand(),
    watchCommand(),
    claimCommand(),
    updateCommand(),
    delistCommand(),
    refreshCommand(),
    eventsCommand(),
    webhooksCommand(),
  ]) {
    program.addCommand(
      command.exitOverride().showHelpAfterError("(add --help for usage)").configureHelp({ showGlobalOptions: true }),
    );
  }
  return program;
}

export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed the message or the help.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    reportError(error, argv.includes("--json"));
    return exitCodeOf(error);
  }
}

process.exitCode = await run(process.argv.slice(2));

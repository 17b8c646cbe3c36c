import { ConfigError, loadConfig } from "./config.js";
import { createLogger } from "./logger.js";
import { SHUTDOWN_GRACE_MS, startServer } from "./server.js";
import { describeStartupFailure } from "./startup-failure.js";

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  let running;
  try {
    running = await startServer(config, logger);
  } catch (error) {
    // Checks that need the network (the facilitator's supported kinds, the chain id) end here too.
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    console.error(describeStartupFailure(error));
    process.exit(1);
  }
  logger.info(
    { url: running.url, publicBaseUrl: config.publicBaseUrl, production: config.production },
    "marketplace listening",
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    // close() itself ends every connection after SHUTDOWN_GRACE_MS; this only catches a close()
    // that hangs on something else (the database, the chain).
    const force = setTimeout(() => {
      logger.error("graceful shutdown timed out; exiting");
      process.exit(1);
    }, SHUTDOWN_GRACE_MS + 5_000);
    force.unref();
    await running.close();
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

await main();

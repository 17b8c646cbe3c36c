import type { BackgroundJob, JobBasics } from "../jobs/job.js";
import type { Payments } from "../payments/setup.js";
import type { SellerProbe } from "../probe/seller-probe.js";
import type { IndexStore } from "./index-store.js";
import type { DocumentPool } from "../workers/pool.js";
import { IndexCrawler } from "./crawler.js";

type CrawlerServices = JobBasics & {
  /** Its store out of `repositories` (src/repositories.ts). */
  repositories: { index: IndexStore };
  probe: Pick<SellerProbe, "check">;
  documents: DocumentPool;
  payments: Pick<Payments, "asset">;
};

/** The index crawler on one instance at a time (a lease renewed before each page): another takes over, from the saved checkpoints, within 30 s of its death. Off without INDEX_SOURCES. */
export const indexCrawlerJob: BackgroundJob<CrawlerServices> = {
  name: "index-crawler",
  create: ({ config, repositories, probe, documents, payments, now, logger }) => {
    const crawler = new IndexCrawler({
      config: config.discovery.indexing,
      store: repositories.index,
      probe,
      rules: { asset: payments.asset, allowLoopback: config.probe.allowLoopbackSellers },
      documents,
      now,
      logger,
    });
    if (!crawler.enabled) return null;
    const { intervalMs } = config.discovery.indexing;
    return {
      intervalMs,
      firstDelayMs: Math.min(intervalMs, 10_000),
      lease: { name: "index-crawler", ttlMs: 30_000 },
      run: (signal, context) => crawler.run(signal, () => context.renewLease()),
    };
  },
};

import { FOREIGN_PAGE_SIZE, foreignDocument } from "../documents/foreign.js";
import { taggedJson } from "../contract/rendered.js";
import type { Handler } from "../services.js";

/** `/foreign.json` and aliases: third-party listings only. */
export const getForeignCatalog: Handler<"getForeignCatalog"> = async (_input, services) => {
  const { token, stamp } = await services.freshness.current();
  const now = services.now();
  const page = await services.store.page({ includeSeed: false, limit: FOREIGN_PAGE_SIZE, offset: 0, now });
  const counts = await services.store.counts(now);
  return taggedJson(foreignDocument(services, page.rows, counts, stamp.changedAt), token);
};

import { taggedJson } from "../contract/rendered.js";
import { statusDocument } from "../documents/status.js";
import type { Handler } from "../services.js";

/** `/status.json`, `/status`: counts and the listing fee. */
export const getStatus: Handler<"getStatus"> = async (_input, services) => {
  const { token, stamp } = await services.freshness.current();
  const counts = await services.store.counts(services.now());
  return taggedJson(statusDocument(services, counts, stamp.changedAt), token);
};

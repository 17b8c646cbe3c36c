import { crawlDocument, discoveryIndex, linkset } from "../documents/directory.js";
import type { Handler } from "../services.js";

/** `/discovery` and aliases. */
export const getDiscoveryIndex: Handler<"getDiscoveryIndex"> = (_input, services) => ({ status: 200, body: discoveryIndex(services) });

/** `/bazaar.links.json`, `/linkset.json`. */
export const getLinkset: Handler<"getLinkset"> = (_input, services) => ({ status: 200, body: linkset(services.market) });

/** `/crawl.json`, `/crawl`. */
export const getCrawl: Handler<"getCrawl"> = (_input, services) => ({ status: 200, body: crawlDocument(services) });

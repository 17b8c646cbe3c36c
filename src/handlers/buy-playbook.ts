import { buyPlaybook } from "../documents/playbooks.js";
import type { Handler } from "../services.js";

/** `/buy.json` and its aliases. */
export const getBuyPlaybook: Handler<"getBuyPlaybook"> = (_input, { market }) => ({ status: 200, body: buyPlaybook(market) });

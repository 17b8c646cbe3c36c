import { sellPlaybook } from "../documents/playbooks.js";
import type { Handler } from "../services.js";

/** `/sell.json` and its aliases: the listing recipe. */
export const getSellPlaybook: Handler<"getSellPlaybook"> = (_input, { market }) => ({ status: 200, body: sellPlaybook(market) });

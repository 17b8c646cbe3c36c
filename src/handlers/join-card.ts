import { joinCard } from "../documents/onboarding.js";
import type { Handler } from "../services.js";

/** `/join.json`, `/join`. */
export const getJoinCard: Handler<"getJoinCard"> = (_input, { market }) => ({ status: 200, body: joinCard(market) });

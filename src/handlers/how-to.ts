import { howTo } from "../documents/onboarding.js";
import type { Handler } from "../services.js";

/** `/how.json`, `/how`. */
export const getHowTo: Handler<"getHowTo"> = (_input, { market }) => ({ status: 200, body: howTo(market) });

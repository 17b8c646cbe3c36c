import { quickstart } from "../documents/onboarding.js";
import type { Handler } from "../services.js";

/** `/start.json` and its aliases: validate, pay POST /listings, buy. */
export const getQuickstart: Handler<"getQuickstart"> = (_input, { market }) => ({ status: 200, body: quickstart(market) });

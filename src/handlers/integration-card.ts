import { integrationCard } from "../documents/cards.js";
import type { Handler } from "../http/handler-types.js";

/** `/integration.json`, `/integration`. */
export const getIntegrationCard: Handler<"getIntegrationCard"> = (_input, { market }) => ({ status: 200, body: integrationCard(market) });

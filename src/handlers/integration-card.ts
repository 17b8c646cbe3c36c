import { integrationCard } from "../documents/cards.js";
import type { Handler } from "../services.js";

/** `/integration.json`, `/integration`. */
export const getIntegrationCard: Handler<"getIntegrationCard"> = (_input, { market }) => ({ status: 200, body: integrationCard(market) });

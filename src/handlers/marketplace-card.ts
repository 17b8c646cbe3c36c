import { marketplaceCard } from "../documents/cards.js";
import type { Handler } from "../services.js";

/** `/marketplace-card.json`, `/manifest.json`. */
export const getMarketplaceCard: Handler<"getMarketplaceCard"> = (_input, { market }) => ({ status: 200, body: marketplaceCard(market) });

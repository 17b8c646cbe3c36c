import { agentCard } from "../documents/agent-manifests.js";
import type { Handler } from "../services.js";

/** The A2A agent card: `/.well-known/agent-card.json`, `/a2a.json` and their aliases. */
export const getAgentCard: Handler<"getAgentCard"> = (_input, { market }) => ({ status: 200, body: agentCard(market) });

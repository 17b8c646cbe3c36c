import { agentsDirectory, agentsText } from "../documents/agents-directory.js";
import type { Handler } from "../services.js";

/** `/agents.json` and its aliases. */
export const getAgents: Handler<"getAgents"> = (_input, { market }) => ({ status: 200, body: agentsDirectory(market) });

/** `/agents.txt`: the same directory as plain text. */
export const getAgentsText: Handler<"getAgentsText"> = (_input, { market }) => ({
  status: 200,
  contentType: "text/plain",
  body: agentsText(market),
});

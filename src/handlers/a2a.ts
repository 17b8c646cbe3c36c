// The a2a area (spec/a2a.tsp): the A2A agent the card (documents area) points at.
import { answerA2aPost } from "../a2a/http-transport.js";
import type { Handler } from "../services.js";
import type { AreaHandlers } from "./area-handlers.js";

/** POST /a2a: A2A JSON-RPC through the A2A SDK's transport handlers. */
const postA2a: Handler<"postA2a"> = (input, services) => answerA2aPost(input, services);

export const a2aHandlers: AreaHandlers<"a2a"> = { postA2a };

import { machinePlaybook } from "../documents/onboarding.js";
import type { Handler } from "../services.js";

/** `/playbook.json`, `/docs`, `/docs.json`: selling and buying in one document. */
export const getPlaybook: Handler<"getPlaybook"> = (_input, { market }) => ({ status: 200, body: machinePlaybook(market) });

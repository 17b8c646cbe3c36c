import { examplesIndex } from "../documents/examples-index.js";
import type { Handler } from "../services.js";

/** `/examples.json`, `/examples`. */
export const getExamples: Handler<"getExamples"> = (_input, { market }) => ({ status: 200, body: examplesIndex(market) });

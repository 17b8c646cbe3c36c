import { examplesIndex } from "../documents/examples-index.js";
import type { Handler } from "../http/handler-types.js";

/** `/examples.json`, `/examples`. */
export const getExamples: Handler<"getExamples"> = (_input, { market }) => ({ status: 200, body: examplesIndex(market) });

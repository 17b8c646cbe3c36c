import { buyScript } from "../documents/example-scripts.js";
import type { Handler } from "../services.js";

/** `/examples/buy.sh`. */
export const getBuyScript: Handler<"getBuyScript"> = (_input, { market }) => ({
  status: 200,
  contentType: "text/x-shellscript",
  body: buyScript(market),
});

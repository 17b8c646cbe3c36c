import { listScript } from "../documents/example-scripts.js";
import type { Handler } from "../services.js";

/** `/examples/list.sh`, `/curl-list.sh`. */
export const getListScript: Handler<"getListScript"> = (_input, { market }) => ({
  status: 200,
  contentType: "text/x-shellscript",
  body: listScript(market),
});

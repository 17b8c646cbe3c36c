import { llmsFullText } from "../documents/llms-text.js";
import type { Handler } from "../services.js";

/** `/llms-full.txt`: the full how-to. */
export const getLlmsFullText: Handler<"getLlmsFullText"> = (_input, { market }) => ({
  status: 200,
  contentType: "text/plain",
  body: llmsFullText(market),
});

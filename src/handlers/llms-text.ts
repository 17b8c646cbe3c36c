import { llmsText } from "../documents/llms-text.js";
import type { Handler } from "../services.js";

/** `/llms.txt`, `/.well-known/llms.txt`. */
export const getLlmsText: Handler<"getLlmsText"> = (_input, { market }) => ({
  status: 200,
  contentType: "text/plain",
  body: llmsText(market),
});

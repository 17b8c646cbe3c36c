import getRawBody from "raw-body";
import type { Context } from "koa";
import { HttpError } from "../contract/errors.js";

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

function hasBody(ctx: Context): boolean {
  const length = ctx.get("content-length");
  return (length !== "" && length !== "0") || ctx.get("transfer-encoding") !== "";
}

/** Reads a request body as text within `limit` bytes, unparsed: undefined when there is none, 413 when too large. */
export async function readBodyText(ctx: Context, limit: number): Promise<string | undefined> {
  if (!hasBody(ctx)) return undefined;
  try {
    return await getRawBody(ctx.req, { limit, encoding: "utf8", length: ctx.get("content-length") || undefined });
  } catch (error) {
    // The rest of a refused body is still on the socket, unread: the next request on a kept-alive
    // connection would wait behind it until a timeout. Close the connection after the answer.
    const close = { Connection: "close" };
    const type = (error as { type?: string }).type;
    if (type === "entity.too.large") {
      throw new HttpError(
        413,
        "payload_too_large",
        `The request body is larger than ${limit} bytes.`,
        undefined,
        close,
      );
    }
    throw new HttpError(
      400,
      "invalid_body",
      `The request body could not be read: ${(error as Error).message}.`,
      undefined,
      close,
    );
  }
}

/**
 * Reads a JSON request body within `limit` bytes: undefined when there is none, 413 when too
 * large, 415 when not JSON, 400 when it does not parse.
 */
export async function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  const raw = await readBodyText(ctx, limit);
  if (raw === undefined || raw.trim() === "") return undefined;
  const mediaType = (ctx.get("content-type").split(";")[0] ?? "").trim();
  if (!JSON_TYPE.test(mediaType)) {
    throw new HttpError(
      415,
      "unsupported_media_type",
      `Send the body as application/json, not ${mediaType || "an unlabelled body"}.`,
    );
  }
  // JSON is UTF-8 (RFC 8259); a body declared in another charset would be read wrongly.
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(ctx.get("content-type"))?.[1];
  if (charset && !/^utf-?8$/i.test(charset)) {
    throw new HttpError(415, "unsupported_media_type", `Send JSON in UTF-8, not charset=${charset}.`);
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw new HttpError(400, "invalid_json", `The request body is not valid JSON: ${(error as Error).message}.`, [
      { in: "body", field: "", message: "is not valid JSON" },
    ]);
  }
}

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const CONTRACT_PATH = fileURLToPath(new URL("../../generated/openapi.json", import.meta.url));

export interface Contract {
  /** The compiled TypeSpec, byte for byte. */
  bytes: Buffer;
  document: Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };
  /** Path -> upper-case methods it answers (HEAD wherever GET). */
  methodsByPath: Map<string, string[]>;
}

const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

export function loadContract(): Contract {
  const bytes = readFileSync(CONTRACT_PATH);
  const document = JSON.parse(bytes.toString("utf8")) as Contract["document"];
  const methodsByPath = new Map<string, string[]>();
  for (const [path, item] of Object.entries(document.paths)) {
    const methods = HTTP_METHODS.filter((method) => method in item).map((method) => method.toUpperCase());
    if (methods.includes("GET") && !methods.includes("HEAD")) methods.push("HEAD");
    methodsByPath.set(path, methods);
  }
  return { bytes, document, methodsByPath };
}

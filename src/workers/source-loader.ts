// The document pool's task module when the service runs from its TypeScript source (tsx, vitest):
// tsx's ESM hooks do not reach worker threads on Node 20, its require hook does, and a task whose
// imports include an ESM-only package (canonicalize) cannot be required. This module is required;
// it loads the task module as ESM through tsx's own API and runs it. Under dist/ it is never used.
import { pathToFileURL } from "node:url";

type TaskModule = { default: (task: unknown) => unknown };
const loaded = new Map<string, Promise<TaskModule>>();

export default async function runFromSource({ filename, task }: { filename: string; task: unknown }): Promise<unknown> {
  let module = loaded.get(filename);
  if (!module) {
    const url = pathToFileURL(filename).href;
    // Imported, not required: tsx's CommonJS build of this API resolves its own files wrongly.
    module = import("tsx/esm/api").then(({ tsImport }) => tsImport(url, url) as Promise<TaskModule>);
    loaded.set(filename, module);
  }
  return (await module).default(task);
}

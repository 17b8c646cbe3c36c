// The search engine's own thread: the only copy of the indexes (BM25 postings, vectors, brands)
// lives here, and every search is ranked here, so a question's few milliseconds of ranking never
// hold the request thread. Messages are handled one at a time, in the order sent: a search sent
// after a batch of changes was acknowledged sees them. engine-thread.ts is the other end.
import { parentPort } from "node:worker_threads";
import { SearchEngine } from "./engine.js";
import { loadCodebook, loadQueryEncoder, type QueryEncoder } from "./query-encoder.js";
import type { EngineReply, EngineRequest, Change } from "./engine-protocol.js";
import { DIMENSIONS } from "./types.js";
import { unpackVector } from "./vector-file.js";

const port = parentPort!;
let encoder: QueryEncoder | null = null;
let encoderError: string | undefined;
try {
  encoder = loadQueryEncoder();
} catch (error) {
  encoderError = error instanceof Error ? error.message : String(error);
}
const engine = new SearchEngine({ encoder, codebook: loadCodebook() });

function apply(changes: Change[], follow: boolean): void {
  for (const change of changes) {
    if (change.doc === null) {
      engine.remove(change.id);
      continue;
    }
    // Following the catalog: a listing whose text did not change keeps its vector, only its facts move.
    if (follow && engine.has(change.id) && !engine.textChanged(change.doc)) engine.updateFacts(change.doc);
    else engine.upsert(change.doc, change.vector ? unpackVector(change.vector) : undefined);
  }
}

function answer(request: EngineRequest): unknown {
  switch (request.op) {
    case "apply":
      return apply(request.changes, request.follow);
    case "reserve":
      return engine.reserve(request.listings);
    case "markReady":
      return engine.markReady();
    case "checkLookalikes":
      return engine.checkLookalikes(request.budgetMs);
    case "search":
      return engine.search(request.query, request.options);
    case "pending": {
      const ids = engine.pendingModelVectors.slice(0, request.limit);
      return ids.flatMap((id) => {
        const text = engine.text(id);
        return text ? [{ id, ...text }] : [];
      });
    }
    case "setModelVectors":
      request.ids.forEach((id, row) =>
        engine.setModelVector(id, request.vectors.subarray(row * DIMENSIONS, (row + 1) * DIMENSIONS)),
      );
      return undefined;
    case "rememberQueryVector":
      return engine.rememberQueryVector(request.query, request.vector);
    case "stats":
      return {
        size: engine.size,
        pending: engine.pendingModelVectors.length,
        memory: engine.memory,
        semanticReady: engine.semanticReady,
      };
  }
}

port.on("message", (request: EngineRequest) => {
  let reply: EngineReply;
  try {
    reply = { id: request.id, result: answer(request) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ id: 0, result: { encoder: encoder !== null, error: encoderError } } satisfies EngineReply);

// The model's vector for a question on its first ask, on the model's thread (never the request
// thread): questions arriving together are embedded together (the model's cost per text falls by
// about half in batches of four), and a question already embedded is not embedded again (the engine
// remembers its vector; `known` mirrors which). When the model is busy (QUEUE questions already
// waiting, or no vector within WAIT_MS) or its thread is not running, the question goes on without the
// model's vector: the engine then uses the query encoder's and the answer says why. A vector that
// comes after WAIT_MS is still handed to the engine (`late`), so the next ask of the question has it.
import { LRUCache } from "lru-cache";
import { BATCH, type EmbeddingPool } from "./embedding-pool.js";
import { normalizeQuery } from "./text.js";

/** Questions waiting for the model, at most; more go on with the query encoder's vector. */
export const QUEUE = 8;
/** Questions whose model vector the engine holds (below the engine's own cache of 5,000, so every one listed is there). */
const KNOWN = 4000;
/**
 * How long a search waits for the model's reading of its question. At 150 distinct questions a second
 * on a loaded two-core machine a queued question waited 1.5 s at 10k listings and 16 s at 100k
 * (bench:search:rate): past this the answer uses the query encoder's vector, and says `model-busy`.
 */
export const WAIT_MS = 250;

export type QueryVector =
  | { vector: Float32Array; reason?: undefined }
  | { vector?: undefined; reason?: "model-busy" | "model-not-loaded" | "known" };

export class QueryVectors {
  private readonly known = new LRUCache<string, true>({ max: KNOWN });
  private waiting: Array<{ key: string; resolve(vector: Float32Array | undefined): void }> = [];
  private running = false;

  constructor(
    private readonly pool: () => EmbeddingPool | null,
    /** Given a vector that came after its search went on without it (the engine remembers it). */
    private readonly late: (query: string, vector: Float32Array) => void = () => {},
  ) {}

  /** The model's vector for a question the engine does not hold yet (undefined with a reason otherwise). */
  async of(query: string): Promise<QueryVector> {
    const key = normalizeQuery(query);
    if (this.known.get(key)) return { reason: "known" };
    const pool = this.pool();
    if (!pool) return { reason: "model-not-loaded" };
    if (this.waiting.length >= QUEUE) return { reason: "model-busy" };
    let waited = false;
    const embedded = new Promise<Float32Array | undefined>((resolve) => {
      this.waiting.push({ key, resolve });
      this.drain(pool);
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>(
      (resolve) => (timer = setTimeout(() => ((waited = true), resolve(undefined)), WAIT_MS)),
    );
    const vector = await Promise.race([embedded, timeout]);
    clearTimeout(timer);
    if (waited) {
      void embedded.then((late) => {
        if (!late) return;
        this.known.set(key, true);
        this.late(query, late);
      });
      return { reason: "model-busy" };
    }
    if (!vector) return { reason: "model-busy" };
    this.known.set(key, true);
    return { vector };
  }

  /** Embeds the waiting questions a batch at a time, one batch in flight. */
  private drain(pool: EmbeddingPool): void {
    if (this.running || this.waiting.length === 0) return;
    this.running = true;
    const batch = this.waiting.splice(0, BATCH);
    pool
      .embed(batch.map((item) => item.key))
      .then(
        (vectors) => batch.forEach((item, n) => item.resolve(vectors[n] ? Float32Array.from(vectors[n]!) : undefined)),
        () => batch.forEach((item) => item.resolve(undefined)),
      )
      .finally(() => {
        this.running = false;
        this.drain(pool);
      });
  }

  /** Forget a question (the engine no longer holds its vector). */
  forget(query: string): void {
    this.known.delete(normalizeQuery(query));
  }
}

// The one memo of reads that hold for one catalog state. A state is named by a token (the freshness
// token, src/catalog/freshness.ts: a write or an expiry changes it), so an entry never needs
// invalidating: a new state asks under new keys, and the old entries age out of the bound.
import { LRUCache } from "lru-cache";

interface Entry {
  promise: Promise<unknown>;
  /** Set once the promise has resolved, for synchronous reads (`known`). */
  settled?: { value: unknown };
}

export interface StateMemoOptions {
  /** Total weight kept (an entry weighs 1 unless `get` says more). */
  maxWeight: number;
}

export class StateMemo {
  private readonly entries: LRUCache<string, Entry>;

  constructor(options: StateMemoOptions) {
    this.entries = new LRUCache<string, Entry>({ maxSize: options.maxWeight, sizeCalculation: () => 1 });
  }

  /**
   * `load()` once per (token, key): concurrent callers share its promise, a rejected load is
   * forgotten. Without a token nothing is kept (each call loads afresh). `weight` makes a large
   * value count as that many small ones against the bound.
   */
  get<T>(token: string | undefined, key: string, load: () => Promise<T>, weight = 1): Promise<T> {
    if (token === undefined) return load();
    const name = memoKey(token, key);
    const known = this.entries.get(name);
    if (known) return known.promise as Promise<T>;
    const entry: Entry = { promise: load() };
    this.entries.set(name, entry, { size: weight });
    entry.promise.then(
      (value) => (entry.settled = { value }),
      () => {
        if (this.entries.peek(name) === entry) this.entries.delete(name);
      },
    );
    return entry.promise as Promise<T>;
  }

  /** Whether (token, key) is kept (loaded or loading). */
  has(token: string, key: string): boolean {
    return this.entries.has(memoKey(token, key));
  }

  /** The resolved value of (token, key), or undefined while it loads or when it is not kept. */
  known<T>(token: string, key: string): T | undefined {
    return this.entries.get(memoKey(token, key))?.settled?.value as T | undefined;
  }

  /** Drops (token, key): the next `get` loads again. */
  forget(token: string, key: string): void {
    this.entries.delete(memoKey(token, key));
  }
}

const memoKey = (token: string, key: string) => `${token}\n${key}`;

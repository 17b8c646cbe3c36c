import type { Redis } from "ioredis";
import type { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Logger } from "../logger.js";
import { metrics } from "../metrics.js";

/**
 * Token buckets in memory, one per key: `capacity` tokens, refilled continuously over `windowMs` (a
 * minute by default). Per instance: N instances behind a load balancer allow up to N times the
 * rate (see {@link SharedLimits}).
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly refillPerMs: number;

  constructor(
    private readonly capacity: number,
    private readonly maxKeys = 50_000,
    windowMs = 60_000,
  ) {
    this.refillPerMs = capacity / windowMs;
  }

  /**
   * Takes `points` tokens for `key` (all or none): 0 when granted, else the seconds until they are
   * available (a full bucket's refill when more than a bucket holds are asked for).
   */
  take(key: string, points = 1, nowMs = Date.now()): number {
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: nowMs };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + (nowMs - bucket.at) * this.refillPerMs);
    bucket.at = nowMs;
    if (bucket.tokens < points) {
      this.buckets.set(key, bucket);
      return Math.ceil((Math.min(points, this.capacity) - bucket.tokens) / this.refillPerMs / 1000);
    }
    bucket.tokens -= points;
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.forgetFull(nowMs);
    return 0;
  }

  /** Seconds until `key` would be granted a token; takes nothing. */
  wait(key: string, nowMs = Date.now()): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return 0;
    const tokens = Math.min(this.capacity, bucket.tokens + (nowMs - bucket.at) * this.refillPerMs);
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / this.refillPerMs / 1000);
  }

  /** Gives back tokens taken by {@link take} (the request did not go out after all). */
  refund(key: string, points = 1): void {
    const bucket = this.buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.capacity, bucket.tokens + points);
  }

  /** A bucket that has refilled completely is the same as no bucket. */
  private forgetFull(nowMs: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (nowMs - bucket.at) * this.refillPerMs >= this.capacity) this.buckets.delete(key);
    }
  }
}

/** One rate limit, wherever its counts live: each call answers 0 (granted) or the seconds to wait. */
export interface Limit {
  /** Takes `points` (default 1) units of work at once, all or none. */
  take(key: string, points?: number): Promise<number>;
  wait(key: string): Promise<number>;
  /** Gives back `points` (default 1) units taken. */
  refund(key: string, points?: number): Promise<void>;
}

/**
 * Two limits on the same work, both checked, all or none: `first` (a minute's budget, say) and
 * `second` (the most of it in a short burst). Units taken from the first are given back when the
 * second refuses.
 */
export function bothLimits(first: Limit, second: Limit): Limit {
  return {
    take: async (key, points = 1) => {
      const wait = await first.take(key, points);
      if (wait > 0) return wait;
      const burstWait = await second.take(key, points);
      if (burstWait > 0) await first.refund(key, points);
      return burstWait;
    },
    wait: async (key) => Math.max(await first.wait(key), await second.wait(key)),
    refund: async (key, points) => {
      await Promise.all([first.refund(key, points), second.refund(key, points)]);
    },
  };
}

/** The seller probe's two limits: per client address and per target host. */
export interface ProbeLimits {
  perClient: Limit;
  perHost: Limit;
  /** Where the counts live, for logs and tests. */
  kind: "memory" | "redis";
  /**
   * Another limit kept where these are (the owner routes' per-client limit): `name` is its key
   * prefix; `points` per `windowSeconds` (a minute by default).
   */
  limit(name: string, points: number, windowSeconds?: number): Limit;
  close(): Promise<void>;
}

/** A limit counted in this instance's memory only (no Redis): for reads, where a round trip would cost about what it guards. */
export function memoryLimit(points: number, windowSeconds = 60): Limit {
  const buckets = new TokenBuckets(points, undefined, windowSeconds * 1000);
  return {
    take: async (key, taken) => buckets.take(key, taken),
    wait: async (key) => buckets.wait(key),
    refund: async (key, given) => buckets.refund(key, given),
  };
}

/** Per-instance limits in memory: the default, without REDIS_URL. */
export function memoryProbeLimits(rates: { perClientPerMinute: number; perHostPerMinute: number }): ProbeLimits {
  return {
    perClient: memoryLimit(rates.perClientPerMinute),
    perHost: memoryLimit(rates.perHostPerMinute),
    kind: "memory",
    limit: (_name, points, windowSeconds) => memoryLimit(points, windowSeconds),
    close: async () => {},
  };
}

const secondsOf = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
/**
 * The longest one decision waits for Redis before this instance's own limit decides instead: a
 * Redis that accepts connections but stops answering must not hold every limited request.
 */
export const REDIS_DECISION_TIMEOUT_MS = 100;

class RedisTimeout extends Error {
  constructor() {
    super(`Redis did not answer within ${REDIS_DECISION_TIMEOUT_MS} ms`);
  }
}

function withinDecisionTimeout<T>(call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisTimeout()), REDIS_DECISION_TIMEOUT_MS);
  });
  // A late answer (or error) of the abandoned call is ignored.
  call.catch(() => {});
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}
/** How often an unreachable Redis is logged while it stays unreachable. */
const OUTAGE_LOG_INTERVAL_MS = 60_000;

/**
 * Limits shared by every instance through Redis (rate-limiter-flexible: `points` per 60 s window
 * per key, counted atomically in Redis). When Redis does not answer, each decision falls back to
 * this instance's memory limiter (fail open: probes keep their per-instance limit, never none),
 * logged once a minute and counted in x402_rate_limiter_fallbacks_total. So does a decision Redis
 * has not answered within REDIS_DECISION_TIMEOUT_MS.
 */
class SharedLimits implements ProbeLimits {
  readonly kind = "redis" as const;
  readonly perClient: Limit;
  readonly perHost: Limit;
  private lastOutageLog = 0;

  constructor(
    private readonly redis: Redis,
    private readonly library: RateLimiterLibrary,
    rates: { perClientPerMinute: number; perHostPerMinute: number },
    private readonly keyPrefix: string,
    private readonly logger: Logger,
  ) {
    this.perClient = this.shared(`${keyPrefix}probe:client`, rates.perClientPerMinute);
    this.perHost = this.shared(`${keyPrefix}probe:host`, rates.perHostPerMinute);
  }

  limit(name: string, points: number, windowSeconds = 60): Limit {
    return this.shared(`${this.keyPrefix}${name}`, points, windowSeconds);
  }

  private shared(keyPrefix: string, capacity: number, windowSeconds = 60): Limit {
    const { RateLimiterRedis: Limiter, RateLimiterRes: Refusal } = this.library;
    const shared = new Limiter({
      storeClient: this.redis,
      keyPrefix,
      points: capacity,
      duration: windowSeconds,
      rejectIfRedisNotReady: true,
    });
    const local = new TokenBuckets(capacity, undefined, windowSeconds * 1000);
    return {
      take: async (key, points = 1) => {
        try {
          await withinDecisionTimeout(shared.consume(key, points));
          return 0;
        } catch (outcome) {
          if (outcome instanceof Refusal) {
            // Redis counted the refused points; a refused batch gives them back (all or none, as in memory).
            if (points > 1) void withinDecisionTimeout(shared.reward(key, points)).catch(() => {});
            return secondsOf(outcome.msBeforeNext);
          }
          this.fellBack(outcome);
          return local.take(key, points);
        }
      },
      wait: async (key) => {
        try {
          const state = await withinDecisionTimeout(shared.get(key));
          return state && state.consumedPoints >= capacity ? secondsOf(state.msBeforeNext) : 0;
        } catch (error) {
          this.fellBack(error);
          return local.wait(key);
        }
      },
      refund: async (key, points = 1) => {
        try {
          await withinDecisionTimeout(shared.reward(key, points));
        } catch (error) {
          this.fellBack(error);
          local.refund(key, points);
        }
      },
    };
  }

  private fellBack(error: unknown): void {
    metrics.rateLimiterFallbacks.inc();
    const now = Date.now();
    if (now - this.lastOutageLog < OUTAGE_LOG_INTERVAL_MS) return;
    this.lastOutageLog = now;
    this.logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      "shared rate limiter (REDIS_URL) unreachable; using this instance's limits until it answers",
    );
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

function withinStartTimeout(connecting: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  connecting.catch(() => {});
  return Promise.race([
    connecting,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("Redis did not become ready within 2 s")), 2_000);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** rate-limiter-flexible's classes, loaded with ioredis only when REDIS_URL is set. */
interface RateLimiterLibrary {
  RateLimiterRedis: typeof RateLimiterRedis;
  RateLimiterRes: typeof RateLimiterRes;
}

/**
 * The probe limits: shared through Redis when `redisUrl` is set, else per instance in memory. A
 * Redis that does not answer at start is not fatal: decisions fall back to memory until it does.
 */
export async function createProbeLimits(
  rates: { perClientPerMinute: number; perHostPerMinute: number },
  shared: { redisUrl: string | null; keyPrefix: string; logger: Logger },
): Promise<ProbeLimits> {
  if (!shared.redisUrl) return memoryProbeLimits(rates);
  const [{ Redis }, library] = await Promise.all([import("ioredis"), import("rate-limiter-flexible")]);
  const redis = new Redis(shared.redisUrl, {
    lazyConnect: true,
    // A command while disconnected fails at once (and falls back) instead of queueing.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: REDIS_DECISION_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
  });
  // Connection errors are reported by the fallback, once a minute; without a listener ioredis prints each.
  redis.on("error", () => {});
  redis.on("ready", () => shared.logger.info("shared rate limiter (REDIS_URL) connected"));
  try {
    // A Redis that accepts the connection but never answers its ready check must not hold the start.
    await withinStartTimeout(redis.connect());
  } catch (error) {
    shared.logger.warn(
      { err: (error as Error).message },
      "shared rate limiter (REDIS_URL) unreachable at start; using this instance's limits until it answers",
    );
  }
  return new SharedLimits(redis, library, rates, shared.keyPrefix, shared.logger);
}

/**
 * Token buckets in memory, one per key: `perMinute` tokens, refilled continuously. Per instance:
 * N instances behind a load balancer allow up to N times the rate.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly refillPerMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly maxKeys = 50_000,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** Takes one token for `key`: 0 when granted, else the seconds until one is available. */
  take(key: string, nowMs = Date.now()): number {
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: nowMs };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (nowMs - bucket.at) * this.refillPerMs);
    bucket.at = nowMs;
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket);
      return Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000);
    }
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.forgetFull(nowMs);
    return 0;
  }

  /** Seconds until `key` would be granted a token; takes nothing. */
  wait(key: string, nowMs = Date.now()): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return 0;
    const tokens = Math.min(this.perMinute, bucket.tokens + (nowMs - bucket.at) * this.refillPerMs);
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / this.refillPerMs / 1000);
  }

  /** Gives back a token taken by {@link take} (the request did not go out after all). */
  refund(key: string): void {
    const bucket = this.buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.perMinute, bucket.tokens + 1);
  }

  /** A bucket that has refilled completely is the same as no bucket. */
  private forgetFull(nowMs: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (nowMs - bucket.at) * this.refillPerMs >= this.perMinute) this.buckets.delete(key);
    }
  }
}

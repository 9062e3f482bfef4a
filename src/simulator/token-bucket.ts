import type { RateLimit } from './options';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * A token bucket over all provider requests. It runs on the simulator's clock, so under a
 * time-skipping test the wait a 429 asks for passes as quickly as the test's time does.
 */
export class TokenBucket {
  private tokens: number;
  private lastRefill: number | null = null;

  constructor(private readonly limit: RateLimit) {
    this.tokens = this.capacity;
  }

  private get capacity(): number {
    return this.limit.burst ?? Math.max(1, Math.floor(this.limit.requestsPerSecond));
  }

  take(now: number): RateDecision {
    if (this.lastRefill !== null) {
      const elapsedSeconds = Math.max(0, now - this.lastRefill) / 1000;
      this.tokens = Math.min(this.capacity, this.tokens + elapsedSeconds * this.limit.requestsPerSecond);
    }
    this.lastRefill = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { allowed: true };
    }
    const secondsToNextToken = (1 - this.tokens) / this.limit.requestsPerSecond;
    return {
      allowed: false,
      retryAfterSeconds: this.limit.retryAfterSeconds ?? Math.max(1, Math.ceil(secondsToNextToken)),
    };
  }
}

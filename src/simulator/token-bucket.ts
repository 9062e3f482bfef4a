import type { RateLimit } from './options';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** What another client of the same key (rateLimit.sharedRps) got from the bucket. */
export interface SharedClientCounts {
  requests: number;
  rateLimited: number;
}

/**
 * A token bucket over all provider requests. It runs on the simulator's clock, so under a
 * time-skipping test the wait a 429 asks for passes as quickly as the test's time does.
 *
 * With `sharedRps`, another client of the same key sends a request every 1/sharedRps seconds
 * from the first request on: each takes a token at its own time (refused when none is left), so
 * the bucket is shared exactly as with a real second client.
 */
export class TokenBucket {
  private tokens: number;
  private lastRefill: number | null = null;
  private nextShared: number | null = null;

  constructor(
    private readonly limit: RateLimit,
    private readonly shared: SharedClientCounts = { requests: 0, rateLimited: 0 },
  ) {
    this.tokens = this.capacity;
  }

  private get capacity(): number {
    return this.limit.burst ?? Math.max(1, Math.floor(this.limit.requestsPerSecond));
  }

  take(now: number): RateDecision {
    this.advance(now);
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

  /** Brings the bucket to `now`: the other client's requests due by then, in order, then the refill. */
  advance(now: number): void {
    const sharedRps = this.limit.sharedRps;
    if (sharedRps !== undefined && sharedRps > 0) {
      this.nextShared ??= now;
      for (; this.nextShared <= now; this.nextShared += 1000 / sharedRps) {
        this.refill(this.nextShared);
        this.shared.requests++;
        if (this.tokens >= 1) this.tokens -= 1;
        else this.shared.rateLimited++;
      }
    }
    this.refill(now);
  }

  private refill(at: number): void {
    if (this.lastRefill !== null) {
      const elapsedSeconds = Math.max(0, at - this.lastRefill) / 1000;
      this.tokens = Math.min(this.capacity, this.tokens + elapsedSeconds * this.limit.requestsPerSecond);
    }
    this.lastRefill = Math.max(this.lastRefill ?? at, at);
  }
}

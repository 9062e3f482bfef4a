import { clientKey } from '../http/client-key';

/** Clients remembered at most; past it the oldest record is dropped (one client cannot grow memory). */
const MAX_CLIENTS = 10_000;

/**
 * Counts wrong tokens per client (see clientKey) over a fixed window: past `maxFailures` in
 * `windowMs`, the client's further wrong tokens are refused until its window ends, so tokens cannot
 * be guessed at speed. Callers check a token before asking, so an accepted token is never refused.
 */
export class FailedTokenThrottle {
  private readonly failures = new Map<string, { count: number; endsAt: number }>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `remoteAddress` may try again, or 0 when it may try now. */
  retryAfterSeconds(remoteAddress: string | undefined): number {
    const record = this.current(clientKey(remoteAddress));
    if (record === undefined || record.count < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((record.endsAt - this.now()) / 1000));
  }

  recordFailure(remoteAddress: string | undefined): void {
    const key = clientKey(remoteAddress);
    const record = this.current(key);
    if (record !== undefined) {
      record.count++;
      return;
    }
    if (this.failures.size >= MAX_CLIENTS) this.dropExpiredOrOldest();
    this.failures.set(key, { count: 1, endsAt: this.now() + this.windowMs });
  }

  private current(key: string) {
    const record = this.failures.get(key);
    if (record !== undefined && record.endsAt <= this.now()) {
      this.failures.delete(key);
      return undefined;
    }
    return record;
  }

  private dropExpiredOrOldest(): void {
    const now = this.now();
    for (const [key, record] of this.failures) if (record.endsAt <= now) this.failures.delete(key);
    if (this.failures.size >= MAX_CLIENTS) this.failures.delete(this.failures.keys().next().value!);
  }
}

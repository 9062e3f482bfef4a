/**
 * Another client of the provider key (the app's own interactive calls, a staging deployment): it
 * sends requests at a steady pace, one request each, no retries, and counts what the provider
 * answered. The shared-quota benchmark (bench/shared-quota.ts) runs it beside a campaign.
 */
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { ProviderRateLimitedError } from '@avatar-pipeline/client/provider/errors';

export class OutsideClient {
  sent = 0;
  accepted = 0;
  rateLimited = 0;
  failed = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly provider: ProviderClient;

  /** `requestsPerSecond` of wall time. */
  constructor(
    baseUrl: string,
    apiKey: string,
    private readonly requestsPerSecond: number,
  ) {
    this.provider = new ProviderClient({ baseUrl, apiKey, timeoutMs: 30_000 });
  }

  start(): void {
    this.timer = setInterval(() => this.send(), 1_000 / this.requestsPerSecond);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.inFlight);
  }

  private send(): void {
    this.sent++;
    const call = this.provider
      .listStyles()
      .then(() => void this.accepted++)
      .catch((err: unknown) => {
        if (err instanceof ProviderRateLimitedError) this.rateLimited++;
        else this.failed++;
      })
      .finally(() => this.inFlight.delete(call));
    this.inFlight.add(call);
  }
}

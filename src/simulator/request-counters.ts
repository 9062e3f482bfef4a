import type { SimulatorStats } from './stats-schema';

type FaultCounters = SimulatorStats['faults'];

/** Counts provider requests as they arrive and as they are answered. */
export class RequestCounters {
  private total = 0;
  private byEndpoint = new Map<string, number>();
  private byStatus = new Map<string, number>();
  private rateLimited = 0;
  private faults: FaultCounters = { serverErrors: 0, lostResponses: 0, malformedJson: 0, slowResponses: 0 };

  received(endpoint: string): void {
    this.total += 1;
    this.byEndpoint.set(endpoint, (this.byEndpoint.get(endpoint) ?? 0) + 1);
  }

  answered(status: number): void {
    const key = String(status);
    this.byStatus.set(key, (this.byStatus.get(key) ?? 0) + 1);
    if (status === 429) this.rateLimited += 1;
  }

  fault(kind: keyof FaultCounters): void {
    this.faults[kind] += 1;
  }

  snapshot(): Pick<SimulatorStats, 'requests' | 'rateLimited' | 'faults'> {
    return {
      requests: {
        total: this.total,
        byEndpoint: Object.fromEntries(this.byEndpoint),
        byStatus: Object.fromEntries(this.byStatus),
      },
      rateLimited: this.rateLimited,
      faults: { ...this.faults },
    };
  }

  clear(): void {
    this.total = 0;
    this.byEndpoint.clear();
    this.byStatus.clear();
    this.rateLimited = 0;
    this.faults = { serverErrors: 0, lostResponses: 0, malformedJson: 0, slowResponses: 0 };
  }
}

import type { EndpointName } from '@avatar-pipeline/client/provider/endpoints';
import { planFaults, type FaultPlan } from './fault-plan';
import { AvatarRenderer } from './images/avatar-renderer';
import { settleAll, type LifecycleContext } from './order-lifecycle';
import { orderStats, orderTotals } from './order-stats';
import { OrderStore } from './order-store';
import { parseSimulatorOptions, type ResolvedSimulatorOptions, type SimulatorOptions } from './options';
import { RequestCounters } from './request-counters';
import { SeededRandom } from './seeded-random';
import { StateFile } from './state-file';
import type { SimulatorStats } from './stats-schema';
import { TokenBucket, type RateDecision } from './token-bucket';

/** The simulator without HTTP: state, knobs, clock, fault dice, rate limiter, counters. */
export class SimulatorRuntime {
  readonly store = new OrderStore();
  readonly counters = new RequestCounters();
  readonly renderer = new AvatarRenderer();
  private input: SimulatorOptions;
  private resolved: ResolvedSimulatorOptions;
  private random: SeededRandom;
  private bucket: TokenBucket | null;
  /** The shared client's answers (rateLimit.sharedRps); kept across quota changes, cleared by reset. */
  private sharedClient = { requests: 0, rateLimited: 0 };
  private stateFile: StateFile | null;

  constructor(
    input: SimulatorOptions,
    private readonly clock: () => number,
  ) {
    this.input = { ...input };
    this.resolved = parseSimulatorOptions(this.input);
    this.random = new SeededRandom(this.resolved.seed);
    this.bucket =
      this.resolved.rateLimit === null ? null : new TokenBucket(this.resolved.rateLimit, this.sharedClient);
    this.stateFile = this.resolved.stateFile === null ? null : new StateFile(this.resolved.stateFile);
    const loaded = this.stateFile?.load() ?? null;
    if (loaded !== null) this.store.restore(loaded.state, loaded.images);
  }

  get options(): ResolvedSimulatorOptions {
    return this.resolved;
  }

  now(): number {
    return this.clock();
  }

  /**
   * Changes knobs live. Top-level keys replace the current ones (a new `progression` replaces the
   * old one whole); everything is validated again, and nothing changes when the result is invalid.
   * Orders already running keep the timing and outcome they were run with.
   */
  setOptions(patch: SimulatorOptions): ResolvedSimulatorOptions {
    const input = { ...this.input, ...patch };
    const resolved = parseSimulatorOptions(input);
    const previous = this.resolved;
    this.input = input;
    this.resolved = resolved;
    if (resolved.seed !== previous.seed) this.random = new SeededRandom(resolved.seed);
    if (JSON.stringify(resolved.rateLimit) !== JSON.stringify(previous.rateLimit)) {
      this.bucket =
        resolved.rateLimit === null ? null : new TokenBucket(resolved.rateLimit, this.sharedClient);
    }
    if (resolved.stateFile !== previous.stateFile) {
      this.stateFile?.flush(this.store);
      this.stateFile = resolved.stateFile === null ? null : new StateFile(resolved.stateFile);
      this.stateFile?.saveNow(this.store);
    }
    return resolved;
  }

  /** Forgets all orders, images and counters; restarts the fault sequence and the rate limiter. Knobs stay. */
  reset(): void {
    this.store.clear();
    this.counters.clear();
    this.renderer.clear();
    this.random = new SeededRandom(this.resolved.seed);
    this.sharedClient = { requests: 0, rateLimited: 0 };
    this.bucket =
      this.resolved.rateLimit === null ? null : new TokenBucket(this.resolved.rateLimit, this.sharedClient);
    this.stateFile?.removeImages();
    this.stateFile?.saveNow(this.store);
  }

  takeRateToken(): RateDecision {
    return this.bucket === null ? { allowed: true } : this.bucket.take(this.now());
  }

  planFaults(endpoint: EndpointName): FaultPlan {
    return planFaults(endpoint, this.random, this.resolved);
  }

  lifecycle(): LifecycleContext {
    return { store: this.store, options: this.resolved, now: this.now() };
  }

  stats(): SimulatorStats {
    const orders = settleAll(this.lifecycle());
    this.bucket?.advance(this.now());
    return {
      ...this.counters.snapshot(),
      ...(this.resolved.rateLimit?.sharedRps ? { sharedClient: { ...this.sharedClient } } : {}),
      totals: orderTotals(orders),
      orders: orders.map(orderStats),
    };
  }

  /** Saves after a request that changed state: at once for writes, batched for status-call counters. */
  persist(urgency: 'now' | 'soon'): void {
    if (this.stateFile === null) return;
    if (urgency === 'now') this.stateFile.saveNow(this.store);
    else this.stateFile.saveSoon(this.store);
  }

  close(): void {
    this.stateFile?.flush(this.store);
  }
}

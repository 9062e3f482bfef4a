import { condition } from '@temporalio/workflow';
import type { StatusReport } from '../src/contracts/provider-activity-results';
import { formatDuration } from '@avatar-pipeline/client/contracts/format-duration';
import type { ExpectedDuration } from '../src/contracts/order-durations';
import type { PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';
import { reads, type ProviderRoute } from './activity-proxies';
import {
  deadlineFailure,
  isFinal,
  nextPollDelay,
  orderFailure,
  progressCapMs,
  recordOrderPolls,
  type FinishBounds,
  type OrderLabel,
} from './polling';

export interface WatchedOrder extends OrderLabel {
  /** The run's answer: an order it already shows DONE or ERROR is not polled at all. */
  known?: StatusReport;
  onStatus: (status: StatusReport, polls: number) => void;
  /** When finished orders of its kind lead to expect its finish (see nextPollDelay). */
  expected?: ExpectedDuration;
  /** Told, once it is DONE, between which reads it finished (times since it joined the watch). */
  onFinished?: (finish: FinishBounds) => void;
}

interface Waiter {
  order: WatchedOrder;
  startedAt: number;
  deadlineAt: number;
  /** Reads that covered it, its own status or the model's order list. */
  polls: number;
  /** Time since it joined when a read last showed it unfinished. */
  unfinishedAtMs: number;
  last?: StatusReport;
  /** Its own latest progress figure (0-100), read at the moment its due time was set from it. */
  progress?: number;
  dueAt: number;
  /** Its next read must be its own status: a figure that said it would be done was wrong, or the list cannot tell. */
  probe: boolean;
  resolve: (report: StatusReport) => void;
  reject: (err: unknown) => void;
}

/**
 * Polls the generation orders of one model together. Each round is one provider request: the
 * model's order list, which carries the status of every order under it, or one order's own status
 * when that says more (its progress figure, the message of an ERROR, or the only order left).
 *
 * The orders of one model are run together and do the same kind of work, so the first progress
 * figure read for one of them times the others too: typically one status call to learn the rate,
 * then one list call at the finish, however many styles. The figure only times reads; an order is
 * DONE only when the provider says so. An order the list does not show finished when its timing
 * said it would be, or that the list does not show at all, is read on its own next. A provider that
 * reports no progress is polled by list with the backoff of nextPollDelay, or, for an order whose
 * kind (its style) has finished often enough before, with the schedule that expectation gives.
 */
export class GenerationWatch {
  private readonly waiters = new Map<number, Waiter>();
  private running = false;
  /** When the watch sleeps until its next round, the time it wakes. */
  private sleepingUntil: number | undefined;
  /** An order joined that is due before sleepingUntil: wake now and plan again. */
  private dueSooner = false;
  /** How long an order of this model takes, as the latest progress figure implies. */
  private expectedMs: number | undefined;
  /** false once a status answer of an unfinished order came without a progress figure. */
  private reportsProgress: boolean | undefined;

  constructor(
    private readonly modelId: number,
    private readonly polling: PollingOptions,
    private readonly route: ProviderRoute,
  ) {}

  /** Resolves when the order is DONE; rejects on ERROR (with the provider's message) or at its deadline. */
  untilDone(order: WatchedOrder): Promise<StatusReport> {
    if (order.known && isFinal(order.known)) {
      order.onStatus(order.known, 0);
      recordOrderPolls(0, order.known.status === 'DONE' ? 'done' : 'error', 'generation');
      return order.known.status === 'DONE'
        ? Promise.resolve(order.known)
        : Promise.reject(orderFailure(order, order.known));
    }
    return new Promise<StatusReport>((resolve, reject) => {
      const now = Date.now();
      const waiter: Waiter = {
        order,
        startedAt: now,
        deadlineAt: now + order.deadlineMs,
        polls: 0,
        unfinishedAtMs: 0,
        dueAt: now,
        probe: false,
        resolve,
        reject,
      };
      waiter.dueAt = this.nextDue(waiter, now);
      this.waiters.set(order.orderId, waiter);
      // One due later is read by that round anyway (a list call reads every order): a timer
      // cancelled and started again would only lengthen the history.
      if (this.sleepingUntil !== undefined && Math.min(waiter.dueAt, waiter.deadlineAt) < this.sleepingUntil)
        this.dueSooner = true;
      if (!this.running) {
        this.running = true;
        void this.run();
      }
    });
  }

  private async run(): Promise<void> {
    try {
      while (this.waiters.size > 0) {
        const wakeAt = this.wakeAt();
        const wait = Math.max(0, wakeAt - Date.now());
        if (wait > 0) {
          const summary = `wait ${formatDuration(wait)} before polling the generation orders of model ${this.modelId}`;
          this.sleepingUntil = wakeAt;
          this.dueSooner = false;
          const woken = await condition(() => this.dueSooner, wait, { summary }).finally(() => {
            this.sleepingUntil = undefined;
          });
          if (woken) continue;
        }
        await this.round();
      }
    } catch (err) {
      // Cancellation (or a read that failed for good) ends every order still watched.
      for (const waiter of this.waiters.values()) waiter.reject(err);
      this.waiters.clear();
    } finally {
      this.running = false;
    }
  }

  /**
   * The next round: the earliest due time or deadline, moved to the last due time within
   * minIntervalMs of it, so orders run moments apart are read by one list call.
   */
  private wakeAt(): number {
    const waiters = [...this.waiters.values()];
    const first = Math.min(...waiters.map((w) => Math.min(w.dueAt, w.deadlineAt)));
    const gathered = waiters.map((w) => w.dueAt).filter((at) => at <= first + this.polling.minIntervalMs);
    return Math.min(Math.max(first, ...gathered), ...waiters.map((w) => w.deadlineAt));
  }

  private async round(): Promise<void> {
    const now = Date.now();
    const pending = [...this.waiters.values()];
    const due = pending.filter((w) => w.dueAt <= now || w.deadlineAt <= now);
    const own = pending.length === 1 ? pending[0] : due.find((w) => this.needsOwnRead(w));
    if (own) {
      const report = await reads.getOrderStatus.executeWithOptions(
        { summary: `poll ${own.order.label}`, ...this.route },
        [{ orderId: own.order.orderId }],
      );
      this.ownRead(own, report);
    } else {
      const { orders } = await reads.listModelOrderStatuses.executeWithOptions(
        { summary: `poll the generation orders of model ${this.modelId}`, ...this.route },
        [{ modelId: this.modelId }],
      );
      this.listRead(new Map(orders.map((o) => [o.orderId, o.status])));
    }
    const after = Date.now();
    for (const waiter of [...this.waiters.values()]) {
      if (after < waiter.deadlineAt) continue;
      this.waiters.delete(waiter.order.orderId);
      recordOrderPolls(waiter.polls, 'deadline', 'generation');
      waiter.reject(deadlineFailure(waiter.order, waiter.last ?? { status: 'not read yet' }));
    }
  }

  private needsOwnRead(waiter: Waiter): boolean {
    if (waiter.probe) return true;
    // Before any figure is known, a status call may bring one that times every order.
    return this.reportsProgress !== false && waiter.progress === undefined && this.expectedMs === undefined;
  }

  private ownRead(waiter: Waiter, report: StatusReport): void {
    const now = Date.now();
    this.seen(waiter, report);
    if (isFinal(report)) return this.finish(waiter, report);
    waiter.probe = false;
    const { progress } = report;
    const elapsedMs = now - waiter.startedAt;
    if (progress === undefined) {
      this.reportsProgress = false;
      waiter.progress = undefined;
    } else if (progress > 0 && progress < 100 && elapsedMs > 0) {
      this.reportsProgress = true;
      waiter.progress = progress;
      this.expectedMs = (elapsedMs * 100) / progress;
      // The others without a figure of their own are timed by this one.
      for (const other of this.waiters.values()) {
        if (other !== waiter && other.progress === undefined && !other.probe)
          other.dueAt = this.nextDue(other, now);
      }
    }
    waiter.dueAt = this.nextDue(waiter, now);
  }

  private listRead(statuses: Map<number, StatusReport['status']>): void {
    const now = Date.now();
    // Without figures every listed order backs off together: one schedule, one list call a round.
    const backoff =
      now +
      nextPollDelay(
        { elapsedMs: 0, polls: Math.max(...[...this.waiters.values()].map((w) => w.polls + 1)) },
        this.polling,
      );
    for (const waiter of [...this.waiters.values()]) {
      const status = statuses.get(waiter.order.orderId);
      const wasDue = waiter.dueAt <= now;
      if (status === undefined || status === 'ERROR') {
        // Not listed, or failed: its own status says what the list cannot (an ERROR's message).
        if (wasDue || status === 'ERROR') {
          waiter.probe = true;
          waiter.dueAt = now;
        }
        continue;
      }
      this.seen(waiter, { status });
      if (status === 'DONE') {
        this.finish(waiter, { status });
      } else if (this.reportsProgress === false) {
        // What finished orders of its kind taught times it; without that, the common backoff.
        waiter.dueAt = waiter.order.expected ? now + this.delayWithoutFigure(waiter, now) : backoff;
      } else if (wasDue) {
        // Its figure said it would be done by now: read its own status for a fresh one.
        waiter.probe = true;
        waiter.dueAt = now + this.polling.minIntervalMs;
      }
    }
  }

  private seen(waiter: Waiter, report: StatusReport): void {
    const elapsedMs = Date.now() - waiter.startedAt;
    waiter.polls++;
    waiter.last = report;
    waiter.order.onStatus(report, waiter.polls);
    if (report.status === 'DONE')
      waiter.order.onFinished?.({ afterMs: waiter.unfinishedAtMs, byMs: elapsedMs });
    else if (!isFinal(report)) waiter.unfinishedAtMs = elapsedMs;
  }

  private delayWithoutFigure(waiter: Waiter, now: number): number {
    return nextPollDelay(
      { elapsedMs: now - waiter.startedAt, polls: waiter.polls },
      this.polling,
      waiter.order.expected,
    );
  }

  private finish(waiter: Waiter, report: StatusReport): void {
    this.waiters.delete(waiter.order.orderId);
    recordOrderPolls(waiter.polls, report.status === 'DONE' ? 'done' : 'error', 'generation');
    if (report.status === 'DONE') waiter.resolve(report);
    else waiter.reject(orderFailure(waiter.order, report));
  }

  /** When to read an order next: by its own figure, else by the model's, else by backoff. */
  private nextDue(waiter: Waiter, now: number): number {
    const elapsedMs = now - waiter.startedAt;
    if (waiter.progress === undefined && this.expectedMs !== undefined) {
      const { minIntervalMs, maxIntervalMs } = this.polling;
      const cap = Math.max(maxIntervalMs, progressCapMs(this.polling));
      return now + Math.round(Math.min(cap, Math.max(minIntervalMs, this.expectedMs - elapsedMs)));
    }
    return (
      now +
      nextPollDelay(
        { elapsedMs, polls: waiter.polls, progress: waiter.progress },
        this.polling,
        // Learned durations time reads only where the provider gives no figures.
        this.reportsProgress === false ? waiter.order.expected : undefined,
      )
    );
  }
}

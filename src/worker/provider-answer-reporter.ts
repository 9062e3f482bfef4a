import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import {
  GRANTED_RATE_WORKFLOW_TYPE,
  grantedRateWorkflowId,
  providerAnswersSignal,
  type GrantedRateInput,
} from '../contracts/granted-rate';
import type { ProviderAnswers } from '../contracts/granted-rate-state';
import type { CallRecord } from '@avatar-pipeline/client/provider/http-transport';

export interface ProviderAnswerReporterOptions {
  client: Client;
  /** Where the controller runs: the pipeline task queue (its worker has the controller's activity). */
  controllerTaskQueue: string;
  providerTaskQueue: string;
  /** PROVIDER_MAX_RPS. */
  ceiling: number;
  /** How often counts are sent, ms. */
  intervalMs?: number;
  /** How soon counts are sent after a 429, ms: the controller cuts the rate on it without waiting for the interval. */
  rateLimitedDelayMs?: number;
  onError?: (err: unknown) => void;
}

const QUIET_FLUSHES_BEFORE_STOP = 5;

/**
 * Counts this provider worker's answers (accepted, 429 with the longest Retry-After) and sends them
 * to the provider rate controller (workflows/granted-rate.ts) once a second, with signal-with-start:
 * the first report of a deployment starts the controller, a report after it continued as new
 * reaches its new run, and a quiet second sends nothing. One signal a second per worker, whatever
 * the request rate, keeps the controller's history small; a lost report only delays a reaction by
 * a second, so failures are logged and the counts dropped. A 429 is sent sooner (at most one early
 * report per `rateLimitedDelayMs`): every second of delay before the cut is a second of 429s for
 * every client of the key.
 */
export class ProviderAnswerReporter {
  readonly workerId = randomUUID();
  private accepted = 0;
  private rateLimited = 0;
  private retryAfterMs = 0;
  private countingSince = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private early: NodeJS.Timeout | undefined;
  private quietFlushes = 0;
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly options: ProviderAnswerReporterOptions) {}

  readonly observe = (call: CallRecord): void => {
    this.start();
    if (call.outcome === 'rate-limited') {
      this.rateLimited++;
      this.retryAfterMs = Math.max(this.retryAfterMs, call.retryAfterMs ?? 0);
      this.early ??= setTimeout(() => {
        this.early = undefined;
        void this.flush();
      }, this.options.rateLimitedDelayMs ?? 100).unref();
    } else if (call.httpStatus !== undefined) {
      // Any other answer means the provider took the request: a 4xx or 5xx is not a quota signal.
      this.accepted++;
    }
  };

  /**
   * Runs while answers come (the first one starts it; a few quiet seconds stop it), so a worker
   * that stops calling the provider leaves no timer behind.
   */
  start(): void {
    if (this.timer) return;
    this.countingSince = Date.now();
    this.timer = setInterval(() => void this.flush(), this.options.intervalMs ?? 1_000);
    this.timer.unref();
  }

  /** Stops the timer and sends what is left. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.early) clearTimeout(this.early);
    this.timer = undefined;
    this.early = undefined;
    await this.flush();
  }

  /** Sends the counts since the previous flush, if any. */
  flush(): Promise<void> {
    const now = Date.now();
    const windowMs = Math.max(1, now - this.countingSince);
    this.countingSince = now;
    if (this.accepted === 0 && this.rateLimited === 0) {
      if (++this.quietFlushes >= QUIET_FLUSHES_BEFORE_STOP && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
      return this.sending;
    }
    this.quietFlushes = 0;
    const answers: ProviderAnswers = {
      workerId: this.workerId,
      windowMs,
      accepted: this.accepted,
      rateLimited: this.rateLimited,
      retryAfterMs: this.retryAfterMs,
      ceiling: this.options.ceiling,
    };
    this.accepted = 0;
    this.rateLimited = 0;
    this.retryAfterMs = 0;
    this.sending = this.sending.then(() => this.send(answers));
    return this.sending;
  }

  private async send(answers: ProviderAnswers): Promise<void> {
    const { client, providerTaskQueue, controllerTaskQueue, ceiling } = this.options;
    const input: GrantedRateInput = { providerTaskQueue, ceiling };
    try {
      await client.workflow.signalWithStart(GRANTED_RATE_WORKFLOW_TYPE, {
        workflowId: grantedRateWorkflowId(providerTaskQueue),
        taskQueue: controllerTaskQueue,
        args: [input],
        signal: providerAnswersSignal,
        signalArgs: [answers],
      });
    } catch (err) {
      this.options.onError?.(err);
    }
  }
}

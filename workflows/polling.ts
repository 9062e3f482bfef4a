import { ApplicationFailure, metricMeter, sleep } from '@temporalio/workflow';
import type { StatusReport } from '../src/contracts/provider-activity-results';
import { formatDuration } from '@avatar-pipeline/client/contracts/format-duration';
import type { ExpectedDuration } from '../src/contracts/order-durations';
import type { PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';
import { reads, type ProviderRoute } from './activity-proxies';
import { FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';

const ORDER_POLLS_METRIC = 'avatar_pipeline_order_polls';

export interface PollRequest {
  orderId: number;
  /** Names the order in failures and UI summaries, e.g. "training of model 12". */
  label: string;
  deadlineMs: number;
  polling: PollingOptions;
  /** Where status calls are scheduled: the provider task queue. */
  route: ProviderRoute;
  onStatus: (status: StatusReport, polls: number) => void;
  /**
   * The status an answer already in hand gave (the run's): an order it shows DONE or ERROR is
   * not polled at all.
   */
  known?: StatusReport;
  /** When finished runs of this kind lead to expect the finish (see nextPollDelay). */
  expected?: ExpectedDuration;
  /** Told, once it is DONE, between which reads it finished (times since the run). */
  onFinished?: (finish: FinishBounds) => void;
}

/** An order ended after the read that last saw it unfinished and by the one that saw it DONE. */
export interface FinishBounds {
  afterMs: number;
  byMs: number;
}

/**
 * Durable sleep-and-poll: a workflow timer between status activities, so a worker restart or a
 * days-long wait costs nothing. Ends on DONE; fails on ERROR (with the provider's message) or at
 * the deadline. Unknown statuses count as "not finished yet".
 */
export async function pollUntilDone(request: PollRequest): Promise<StatusReport> {
  const started = Date.now();
  const deadline = started + request.deadlineMs;
  let polls = 0;
  if (request.known && isFinal(request.known)) {
    request.onStatus(request.known, polls);
    return settle(request, request.known, polls);
  }
  let last: StatusReport | undefined;
  let unfinishedAtMs = 0;
  for (;;) {
    const delay = nextPollDelay(
      { elapsedMs: Date.now() - started, polls, progress: last?.progress },
      request.polling,
      request.expected,
    );
    const wait = Math.min(delay, Math.max(0, deadline - Date.now()));
    await sleep(wait, { summary: `wait ${formatDuration(wait)} before polling ${request.label}` });
    last = await reads.getOrderStatus.executeWithOptions(
      { summary: `poll ${request.label}`, ...request.route },
      [{ orderId: request.orderId }],
    );
    polls++;
    request.onStatus(last, polls);
    if (last.status === 'DONE') request.onFinished?.({ afterMs: unfinishedAtMs, byMs: Date.now() - started });
    if (isFinal(last)) return settle(request, last, polls);
    unfinishedAtMs = Date.now() - started;
    if (Date.now() >= deadline) {
      recordOrderPolls(polls, 'deadline', 'training');
      throw deadlineFailure(request, last);
    }
  }
}

export function isFinal(report: StatusReport): boolean {
  return report.status === 'DONE' || report.status === 'ERROR';
}

/** Names an order in failures: its label, its id, how long it was given. */
export interface OrderLabel {
  orderId: number;
  label: string;
  deadlineMs: number;
}

/** DONE answers the report; ERROR fails with the provider's message. */
function settle(request: PollRequest, report: StatusReport, polls: number): StatusReport {
  recordOrderPolls(polls, report.status === 'DONE' ? 'done' : 'error', 'training');
  if (report.status === 'DONE') return report;
  throw orderFailure(request, report);
}

/** An order that ended in ERROR, with the provider's message. */
export function orderFailure(order: OrderLabel, report: StatusReport): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `${capitalize(order.label)} ended in ERROR: ${report.message ?? 'the provider gave no reason'}`,
    FAILURE_TYPES.providerOrderFailed,
    { orderId: order.orderId, status: report.status, message: report.message },
  );
}

/** An order still not finished at its deadline, with the last status seen. */
export function deadlineFailure(order: OrderLabel, last: StatusReport): ApplicationFailure {
  const progress = last.progress === undefined ? '' : `, ${last.progress}%`;
  return ApplicationFailure.nonRetryable(
    `${capitalize(order.label)} (order ${order.orderId}) did not finish within ${formatDuration(order.deadlineMs)} (last status ${last.status}${progress})`,
    FAILURE_TYPES.pollDeadlineExceeded,
    { orderId: order.orderId, status: last.status, progress: last.progress },
  );
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export interface PollObservation {
  /** Time since the order was run. */
  elapsedMs: number;
  /** Status calls made so far. */
  polls: number;
  /** 0-100 when the provider reports it. */
  progress?: number;
}

/**
 * Reads inside the expected window come this share of the typical duration apart, so a finish
 * there is seen within it: 4%, under the 5% of a duration a finish may go unnoticed.
 */
export const EXPECTED_WINDOW_READ_SHARE = 0.04;

/**
 * How long to wait before the next status call. With a progress figure, aim at the finish it
 * implies (assuming the rate so far continues; a figure rounded down makes that the latest
 * finish it allows, so the call lands at or just after the end), within [minIntervalMs,
 * maxProgressIntervalMs]: one call to learn the rate, one at the finish.
 *
 * When the provider gives none, after the first read (which tells whether it gives them at all):
 * when finished runs of the kind say when to expect the finish, wait for the start of that
 * window in even steps of at most maxProgressIntervalMs, read every EXPECTED_WINDOW_READ_SHARE of
 * the typical duration inside it, and past it back off again from that pace, in proportion to the
 * overrun, up to maxIntervalMs, so a run far longer than its kind is still seen within that cap.
 * With nothing learned, back off geometrically within [minIntervalMs, maxIntervalMs], so the lag
 * after a finish is bounded by that cap.
 */
export function nextPollDelay(
  observation: PollObservation,
  options: PollingOptions,
  expected?: ExpectedDuration,
): number {
  const { initialIntervalMs, maxIntervalMs, minIntervalMs, backoffCoefficient } = options;
  const clamp = (ms: number, cap: number) => Math.round(Math.min(cap, Math.max(minIntervalMs, ms)));
  const { progress, elapsedMs, polls } = observation;
  const longCap = Math.max(maxIntervalMs, progressCapMs(options));
  if (progress !== undefined && progress > 0 && progress < 100 && elapsedMs > 0) {
    const remainingMs = (elapsedMs * (100 - progress)) / progress;
    return clamp(remainingMs, longCap);
  }
  if (expected !== undefined && polls > 0 && progress === undefined) {
    const windowStepMs = clamp(EXPECTED_WINDOW_READ_SHARE * expected.typicalMs, maxIntervalMs);
    if (elapsedMs < expected.earliestMs) {
      const untilWindowMs = expected.earliestMs - elapsedMs;
      return clamp(untilWindowMs / Math.ceil(untilWindowMs / longCap), longCap);
    }
    if (elapsedMs < expected.latestMs) return windowStepMs;
    const overrunMs = elapsedMs - expected.latestMs;
    return clamp(windowStepMs + overrunMs * (backoffCoefficient - 1), maxIntervalMs);
  }
  return clamp(initialIntervalMs * Math.pow(backoffCoefficient, polls), maxIntervalMs);
}

/** The longest wait a progress figure may justify (see PollingOptions.maxProgressIntervalMs). */
export function progressCapMs(options: PollingOptions): number {
  return options.maxProgressIntervalMs ?? 2 * options.maxIntervalMs;
}

/**
 * How many reads of its status a provider order took until it ended (done, error or deadline), as
 * a histogram tagged with the kind of order. The workflow meter emits nothing during replay.
 */
export function recordOrderPolls(
  polls: number,
  outcome: 'done' | 'error' | 'deadline',
  kind: 'training' | 'generation',
): void {
  metricMeter
    .createHistogram(
      ORDER_POLLS_METRIC,
      'int',
      '',
      "Status reads per provider order until it ended (its own status, or its model's order list)",
    )
    .record(polls, { kind, outcome });
}

import { ApplicationFailure, sleep } from '@temporalio/workflow';
import type { PollingOptions } from '../src/contracts/pipeline-input';
import type { StatusReport } from '../activities/provider-activities';
import { reads } from './activity-proxies';
import { recordOrderPolls } from './poll-metrics';
import { nextPollDelay } from './polling-policy';
import { formatDuration } from './format-duration';

export interface PollRequest {
  orderId: number;
  /** Names the order in failures and UI summaries, e.g. "training of model 12". */
  label: string;
  deadlineMs: number;
  polling: PollingOptions;
  /** Where status calls are scheduled (the provider task queue), when not on the workflow's own queue. */
  route?: { taskQueue?: string };
  onStatus: (status: StatusReport, polls: number) => void;
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
  let last: StatusReport | undefined;
  for (;;) {
    const delay = nextPollDelay(
      { elapsedMs: Date.now() - started, polls, progress: last?.progress },
      request.polling,
    );
    const wait = Math.min(delay, Math.max(0, deadline - Date.now()));
    await sleep(wait, { summary: `wait ${formatDuration(wait)} before polling ${request.label}` });
    last = await reads.getOrderStatus.executeWithOptions(
      { summary: `poll ${request.label}`, ...request.route },
      [{ orderId: request.orderId }],
    );
    polls++;
    request.onStatus(last, polls);
    if (last.status === 'DONE') {
      recordOrderPolls(polls, 'done');
      return last;
    }
    if (last.status === 'ERROR') {
      recordOrderPolls(polls, 'error');
      throw ApplicationFailure.nonRetryable(
        `${capitalize(request.label)} ended in ERROR: ${last.message ?? 'the provider gave no reason'}`,
        'ProviderOrderFailed',
        { orderId: request.orderId, status: last.status, message: last.message },
      );
    }
    if (Date.now() >= deadline) {
      recordOrderPolls(polls, 'deadline');
      const progress = last.progress === undefined ? '' : `, ${last.progress}%`;
      throw ApplicationFailure.nonRetryable(
        `${capitalize(request.label)} (order ${request.orderId}) did not finish within ${formatDuration(request.deadlineMs)} (last status ${last.status}${progress})`,
        'PollDeadlineExceeded',
        { orderId: request.orderId, status: last.status, progress: last.progress },
      );
    }
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

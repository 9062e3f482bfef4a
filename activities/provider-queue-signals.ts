/**
 * The signals the auto in-flight window (workflows/window-controller.ts) is sized from, read outside the
 * workflow by a light campaign activity that the campaign calls on a timer:
 * - the provider task queue's backlog (approximate count, age of its head) from Temporal's
 *   DescribeTaskQueue with stats: the server rate-limits that queue at PROVIDER_MAX_RPS, so demand
 *   above the quota waits there, whichever worker or campaign it comes from;
 * - the provider's answers (all, 429, errors) counted by this worker process's provider client,
 *   as running totals that the campaign turns into per-sample counts;
 * - the provider queue's rate limit as the server holds it (its task queue configuration): the rate
 *   the provider rate controller (workflows/granted-rate.ts) learned the provider grants.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { CallRecord } from '@avatar-pipeline/client/provider/http-transport';
import type { ProviderQueueReading } from '@avatar-pipeline/client/contracts/campaign/window-state';

export type { ProviderQueueReading };

/** Running totals of provider answers in this process, fed by the provider client's call observer. */
class ProviderAnswerTally {
  readonly id = randomUUID();
  requests = 0;
  rateLimited = 0;
  errors = 0;

  readonly observe = (call: CallRecord): void => {
    this.requests++;
    if (call.outcome === 'rate-limited') this.rateLimited++;
    else if (call.outcome === 'unavailable' || call.outcome === 'invalid-response') this.errors++;
  };
}

export const providerAnswerTally = new ProviderAnswerTally();

// TASK_QUEUE_KIND_NORMAL = 1, TASK_QUEUE_TYPE_ACTIVITY = 2 (numbers: the proto package is not a dependency).
const KIND_NORMAL = 1;
const TYPE_WORKFLOW = 1;
const TYPE_ACTIVITY = 2;

/**
 * The provider task queue's activity backlog, this process's answer totals and, given the
 * campaign's own task queue, how long its workflow tasks wait for a worker.
 */
export async function readProviderQueue(
  client: Client,
  queues: { providerTaskQueue: string; workflowTaskQueue?: string },
  tally: ProviderAnswerTally = providerAnswerTally,
): Promise<ProviderQueueReading & { queueRateLimit?: number }> {
  const { providerTaskQueue, workflowTaskQueue } = queues;
  const describe = (name: string, taskQueueType: number) =>
    client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name, kind: KIND_NORMAL },
      taskQueueType,
      reportStats: true,
      reportConfig: taskQueueType === TYPE_ACTIVITY,
    });
  const [answer, workflows] = await Promise.all([
    describe(providerTaskQueue, TYPE_ACTIVITY),
    workflowTaskQueue === undefined ? undefined : describe(workflowTaskQueue, TYPE_WORKFLOW),
  ]);
  const { stats } = answer;
  const age = stats?.approximateBacklogAge;
  const workflowAge = workflows?.stats?.approximateBacklogAge;
  const queueRateLimit = answer.config?.queueRateLimit?.rateLimit?.requestsPerSecond ?? undefined;
  return {
    ...(queueRateLimit !== undefined ? { queueRateLimit } : {}),
    backlogCount: Number(stats?.approximateBacklogCount ?? 0),
    backlogAgeMs: milliseconds(age),
    ...(workflows ? { workflowBacklogAgeMs: milliseconds(workflowAge) } : {}),
    addRate: stats?.tasksAddRate ?? 0,
    dispatchRate: stats?.tasksDispatchRate ?? 0,
    tallyId: tally.id,
    requests: tally.requests,
    rateLimited: tally.rateLimited,
    errors: tally.errors,
  };
}

function milliseconds(duration: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return duration ? Number(duration.seconds ?? 0) * 1000 + Math.round((duration.nanos ?? 0) / 1e6) : 0;
}

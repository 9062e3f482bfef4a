import type { WorkflowService } from '@temporalio/client';

// TASK_QUEUE_TYPE_ACTIVITY (numbers: the proto package is not a dependency).
const TYPE_ACTIVITY = 2;

/**
 * Sets the provider task queue's rate limit in Temporal's task queue configuration
 * (UpdateTaskQueueConfig), which binds every worker polling the queue over the limit each worker
 * sets itself; without a rate, removes it, so the workers' own limit (PROVIDER_MAX_RPS) applies again.
 */
export async function setProviderQueueRateLimit(
  service: WorkflowService,
  target: { namespace: string; identity: string; providerTaskQueue: string },
  rate: number | undefined,
  reason: string,
): Promise<void> {
  await service.updateTaskQueueConfig({
    namespace: target.namespace,
    identity: target.identity,
    taskQueue: target.providerTaskQueue,
    taskQueueType: TYPE_ACTIVITY,
    // The server keeps the reason with the limit (shown by `temporal task-queue config get`); it is bounded.
    updateQueueRateLimit: {
      ...(rate !== undefined ? { rateLimit: { requestsPerSecond: rate } } : {}),
      reason: reason.slice(0, 200),
    },
  });
}

import { patched } from '@temporalio/workflow';

/**
 * Provider activities run on their own task queue when the starter names one, so one
 * task-queue-wide rate limit (the provider worker's maxTaskQueueActivitiesPerSecond) holds every
 * pipeline and campaign under the provider's quota. Histories recorded before this existed
 * scheduled everything on the workflow's own queue; the patch keeps replaying them that way.
 */
export const PROVIDER_TASK_QUEUE_PATCH = 'provider-task-queue';

/** Activity options that send a provider call to `providerTaskQueue` (or leave it on the workflow's queue). */
export function providerRoute(providerTaskQueue: string | undefined): { taskQueue?: string } {
  if (!providerTaskQueue) return {};
  return patched(PROVIDER_TASK_QUEUE_PATCH) ? { taskQueue: providerTaskQueue } : {};
}

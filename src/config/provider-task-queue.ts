/**
 * The provider task queue when PROVIDER_TASK_QUEUE is not set: workers, the API, the CLI and the
 * client package must all agree on it, or provider activities wait on a queue nobody polls.
 */
export function defaultProviderTaskQueue(taskQueue: string): string {
  return `${taskQueue}-provider`;
}

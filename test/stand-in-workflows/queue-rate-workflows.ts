import { proxyActivities } from '@temporalio/workflow';

export interface QueueRateActivities {
  touch(index: number): Promise<void>;
}

/** Schedules `count` activities at once on `taskQueue`: how fast they start is the queue's rate. */
export async function fanOutTouches(taskQueue: string, count: number): Promise<void> {
  const { touch } = proxyActivities<QueueRateActivities>({ taskQueue, startToCloseTimeout: '30 seconds' });
  await Promise.all(Array.from({ length: count }, (_, i) => touch(i)));
}

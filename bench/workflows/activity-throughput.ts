/**
 * Bench-only workflow: calls the product's getOrderStatus activity `calls` times, `lanes` at a
 * time, on the product worker's provider task queue. Bundled by bench/activity-throughput.ts,
 * never by the product.
 */
import { proxyActivities } from '@temporalio/workflow';

export interface ActivityThroughputInput {
  providerTaskQueue: string;
  orderId: number;
  calls: number;
  lanes: number;
}

export async function activityThroughput(input: ActivityThroughputInput): Promise<number> {
  const { getOrderStatus } = proxyActivities<{ getOrderStatus(i: { orderId: number }): Promise<unknown> }>({
    taskQueue: input.providerTaskQueue,
    startToCloseTimeout: '30 seconds',
  });
  let issued = 0;
  const lane = async () => {
    while (issued < input.calls) {
      issued++;
      await getOrderStatus({ orderId: input.orderId });
    }
  };
  await Promise.all(Array.from({ length: input.lanes }, lane));
  return issued;
}

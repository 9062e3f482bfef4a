import { proxyActivities } from '@temporalio/workflow';
import type { ProviderActivities } from '../../activities/provider-activities';
import type { StatusReport } from '../../src/contracts/provider-activity-results';

const { runOrder } = proxyActivities<Pick<ProviderActivities, 'runOrder'>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 milliseconds', maximumAttempts: 3 },
});

/** One provider write as an activity with retries: the smallest workflow whose retry a 429 decides. */
export async function runOrderWorkflow(orderId: number): Promise<StatusReport> {
  return runOrder({ orderId });
}

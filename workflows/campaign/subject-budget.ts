import { proxyActivities } from '@temporalio/workflow';
import type { CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import type { BudgetActivities } from '../../activities/budget-activities';

const { reserveRunBudget } = proxyActivities<BudgetActivities>({
  startToCloseTimeout: '1 minute',
  // The meter is a workflow on this cluster: while it cannot answer, the campaign waits, it does not fail.
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', backoffCoefficient: 2 },
});

/**
 * Reserves what a subject's run may cost (a training unless the subject names a model, and each
 * style) from the tenant's budget. Answers the refusal's words when the budget would be passed,
 * else undefined.
 */
export async function reserveSubject(
  tenant: string,
  runId: string,
  subject: CampaignSubject,
): Promise<string | undefined> {
  const answer = await reserveRunBudget({
    tenant,
    runId,
    trains: subject.modelId === undefined,
    styles: subject.styles.length,
  });
  return answer.refused;
}

import type { Client } from '@temporalio/client';
import { WORKFLOW_TYPES } from '../contracts/workflow-definitions';

/**
 * How many open campaigns share a fairness key (a tenant): the campaigns whose start memo names
 * it (src/client/campaigns.ts). The tenant's in-flight window is divided among them
 * (src/contracts/tenant-window.ts). Read from visibility, so a campaign started moments ago may
 * be missed for a sample; at least 1, the asking campaign.
 */
export async function countOpenCampaigns(client: Client, fairnessKey: string): Promise<number> {
  let count = 0;
  const open = client.workflow.list({
    query: `WorkflowType = '${WORKFLOW_TYPES.campaign}' AND ExecutionStatus = 'Running'`,
  });
  for await (const campaign of open) {
    if (campaign.memo?.['fairnessKey'] === fairnessKey) count++;
  }
  return Math.max(1, count);
}

import type { Client } from '@temporalio/client';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';

/**
 * How many open campaigns share a fairness key (a tenant) on one task queue: the campaigns whose
 * start memo names it (packages/client/src/campaign/campaigns.ts). Only campaigns on the same task queue
 * share a provider queue and so a window; campaigns of the tenant elsewhere in the namespace
 * (another deployment, another queue) do not. The tenant's in-flight window is divided among them
 * (workflows/campaign/tenant-window.ts). Read from visibility, so a campaign started moments
 * ago may be missed for a sample; at least 1, the asking campaign.
 */
export async function countOpenCampaigns(
  client: Client,
  fairnessKey: string,
  taskQueue: string | undefined,
): Promise<number> {
  let count = 0;
  const onQueue = taskQueue === undefined ? '' : ` AND TaskQueue = '${taskQueue.replace(/'/g, "\\'")}'`;
  const open = client.workflow.list({
    query: `WorkflowType = '${WORKFLOW_TYPES.campaign}' AND ExecutionStatus = 'Running'${onQueue}`,
  });
  for await (const campaign of open) {
    if (campaign.memo?.['fairnessKey'] === fairnessKey) count++;
  }
  return Math.max(1, count);
}

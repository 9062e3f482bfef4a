import { Context } from '@temporalio/activity';
import { chargeOrder } from '@avatar-pipeline/client/client/budget';
import { DEFAULT_TENANT, tenantOfWorkflowId } from '@avatar-pipeline/client/contracts/workflow-ids';
import { campaignOfRun } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import { costOf, type Costs, type OrderKind } from '@avatar-pipeline/client/contracts/usage';

/**
 * Tells the tenant's budget meter of an order an activity made or adopted. The run is the
 * activity's workflow, the tenant is in its id, and the key is the provider's id for the order,
 * so a retried activity, a reconciled write or a worker killed after the signal counts it once.
 * Called before the activity answers: an attempt that dies before telling is retried, finds the
 * same order and tells then.
 */
export type MeterOrder = (kind: OrderKind, key: string) => Promise<void>;

/** The meter of `costs` (API_TENANTS_FILE); without prices nothing is metered. `taskQueue`: where meters run. */
export function orderMeter(costs: Costs | undefined, taskQueue: string): MeterOrder {
  if (costs === undefined) return async () => {};
  return async (kind, key) => {
    const { info, client } = Context.current();
    // An activity started on its own, outside a run, has no run to charge.
    const runId = info.workflowExecution?.workflowId;
    if (runId === undefined) return;
    const tenant = tenantOfWorkflowId(runId) ?? DEFAULT_TENANT;
    await chargeOrder(
      client,
      { tenant, taskQueue },
      { key, kind, runId, ...campaignOf(runId), credits: costOf(costs, kind), at: Date.now() },
    );
  };
}

function campaignOf(runId: string): { campaignId?: string } {
  const campaignId = campaignOfRun(runId);
  return campaignId !== undefined ? { campaignId } : {};
}

import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { BudgetExceededError, reserveRunBudget, type Pricing } from '@avatar-pipeline/client/client/budget';
import { campaignOfRun } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import { maxRunCost, type Usage } from '@avatar-pipeline/client/contracts/usage';
import type { BudgetMetrics } from '../src/worker/budget-metrics';

/** Runs described at once by one sweep: a tenant may hold thousands of reservations in a campaign. */
const DESCRIBE_AT_ONCE = 8;

/**
 * Activities of the budget meter (workflows/budget/budget-meter.ts) and of the reservations
 * campaigns make for their subjects; they run on the pipeline task queue, where the meters run.
 * `pricingOf` is the workers' tenants file (API_TENANTS_FILE), read for each reservation, so a
 * raised budget holds for the next one.
 */
export function createBudgetActivities({
  pricingOf = () => undefined,
  metrics,
}: { pricingOf?: (tenant: string) => Pricing | undefined; metrics?: BudgetMetrics } = {}) {
  return {
    /** The meter's usage as this worker's gauges (BudgetMetrics). */
    async reportUsage(usage: Usage): Promise<void> {
      metrics?.report(usage);
    },

    /**
     * Reserves a campaign subject's run from its tenant's budget before the campaign starts it.
     * Answers `refused` with the meter's reason past a hard budget; a tenant whose work is not
     * priced reserves nothing. A repeated reservation of the run reserves nothing more.
     */
    async reserveRunBudget(input: {
      tenant: string;
      runId: string;
      trains: boolean;
      styles: number;
    }): Promise<{ refused?: string }> {
      const pricing = pricingOf(input.tenant);
      if (pricing === undefined) return {};
      const { client, info } = Context.current();
      try {
        await reserveRunBudget(
          client,
          { tenant: input.tenant, taskQueue: info.taskQueue },
          {
            runId: input.runId,
            credits: maxRunCost(pricing.costs, input),
            campaignId: campaignOfRun(input.runId),
            budget: pricing.budget,
          },
        );
        return {};
      } catch (err) {
        if (err instanceof BudgetExceededError) return { refused: err.message };
        throw err;
      }
    },

    /**
     * Which of `runIds` have ended (closed in any way) or do not exist: their reservations can be
     * settled. Read from the server, so it is the runs' own state, not a report of it.
     */
    async endedRuns(input: { runIds: string[] }): Promise<{ ended: string[] }> {
      const { client } = Context.current();
      const ended: string[] = [];
      const queue = [...input.runIds];
      const describeNext = async (): Promise<void> => {
        for (let runId = queue.shift(); runId !== undefined; runId = queue.shift()) {
          try {
            const { status } = await client.workflow.getHandle(runId).describe();
            if (status.name !== 'RUNNING') ended.push(runId);
          } catch (err) {
            if (!(err instanceof WorkflowNotFoundError)) throw err;
            ended.push(runId);
          }
          Context.current().heartbeat();
        }
      };
      await Promise.all(Array.from({ length: DESCRIBE_AT_ONCE }, describeNext));
      return { ended };
    },
  };
}

export type BudgetActivities = ReturnType<typeof createBudgetActivities>;

import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';

/** Runs described at once by one sweep: a tenant may hold thousands of reservations in a campaign. */
const DESCRIBE_AT_ONCE = 8;

/** Activities of the budget meter (workflows/budget/budget-meter.ts); they run on the pipeline task queue. */
export function createBudgetActivities() {
  return {
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

import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { WORKFLOW_TYPES } from '../src/contracts/workflow-definitions';

/** What holds a claim's workflow id: a claim (another pipeline owns the order), something else, or nothing now. */
export type ClaimHolder = 'claim' | 'other' | 'none';

/** Activities of order claims (workflows/obtain-model.ts); they run on the pipeline task queue. */
export function createClaimActivities() {
  return {
    /**
     * Asked only after a claim's start was refused: only a claim workflow at that id means another
     * pipeline owns the order. Anything else there (a workflow squatting the id) owns nothing.
     */
    async claimHolder(input: { claimId: string }): Promise<{ holder: ClaimHolder }> {
      try {
        const description = await Context.current().client.workflow.getHandle(input.claimId).describe();
        return { holder: description.type === WORKFLOW_TYPES.claim ? 'claim' : 'other' };
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return { holder: 'none' };
        throw err;
      }
    },
  };
}

export type ClaimActivities = ReturnType<typeof createClaimActivities>;

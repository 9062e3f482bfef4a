import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, startChild, workflowInfo, WorkflowIdReusePolicy } from '@temporalio/workflow';

/**
 * A claim's only job is to exist: its workflow id names one provider order, and Temporal lets
 * exactly one execution hold an id. Whoever starts it owns the order.
 */
export async function providerOrderClaim(owner: string): Promise<string> {
  return owner;
}

/** True when this pipeline now owns the order behind `claimId`; false when another pipeline does. */
export async function claim(claimId: string, what: string): Promise<boolean> {
  try {
    const held = await startChild(providerOrderClaim, {
      workflowId: claimId,
      args: [workflowInfo().workflowId],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `claim ${what} for ${workflowInfo().workflowId}`,
    });
    // Waiting for the claim to close keeps no stray workflow task behind this pipeline.
    await held.result();
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

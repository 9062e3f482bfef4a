import { isGrpcServiceError, type Client } from '@temporalio/client';

/**
 * Deletes a workflow execution (without a run id: the latest run), terminating it first when it
 * is still running; one already gone (a repeated erasure, or deleted with its parent) is no error.
 * Temporal carries the deletion out in the background, within moments.
 */
export async function deleteExecution(
  client: Client,
  execution: { workflowId: string; runId?: string },
): Promise<void> {
  const namespace = client.options.namespace;
  await client.workflowService
    .deleteWorkflowExecution({ namespace, workflowExecution: execution })
    .catch((err: unknown) => {
      if (!isGrpcNotFound(err)) throw err;
    });
}

function isGrpcNotFound(err: unknown): boolean {
  const NOT_FOUND = 5;
  return isGrpcServiceError(err) && err.code === NOT_FOUND;
}

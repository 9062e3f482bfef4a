import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  type Client,
} from '@temporalio/client';
import { missingSearchAttributesError, pipelineStartMetadata } from '../client/pipeline-start-metadata';
import { pipelineWorkflowId } from '../client/pipelines';
import type { PipelineWorkflowInput } from '../contracts/pipeline-input';
import { WORKFLOW_TYPES, type AvatarPipelineWorkflow } from '../contracts/workflow-definitions';
import { ApiError } from './api-error';

export interface StartedRun {
  workflowId: string;
  /** false: a run with this request id existed (open or closed) and nothing was started. */
  created: boolean;
  /** The earlier run's request fingerprint, when one was found. */
  existingFingerprint?: string;
}

/**
 * Starts one pipeline; with a request id, a second start finds the first run instead (the
 * workflow id is derived from the request id and may never be reused). Unlike the client
 * package's startPipeline, it tells a new run from an existing one, which the API answers
 * differently (202 vs 200) and which decides whether this request's uploads are kept.
 */
export async function startRun(
  client: Client,
  input: PipelineWorkflowInput,
  options: { taskQueue: string; requestId?: string; fingerprint: string; workflowId?: string },
): Promise<StartedRun> {
  const workflowId = options.workflowId ?? pipelineWorkflowId(options.requestId);
  try {
    await client.workflow.start<AvatarPipelineWorkflow>(WORKFLOW_TYPES.pipeline, {
      taskQueue: options.taskQueue,
      workflowId,
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      memo: {
        requestFingerprint: options.fingerprint,
        ...(input.subjectId ? { subjectId: input.subjectId } : {}),
        ...(input.campaignId ? { campaignId: input.campaignId } : {}),
      },
      // The same search attributes, summary and details as the client package's starts.
      ...pipelineStartMetadata(client, input),
    });
    return { workflowId, created: true };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
      const setupProblem = missingSearchAttributesError(client, err);
      throw setupProblem ? new ApiError(503, setupProblem.message, []) : err;
    }
    const existing = await client.workflow.getHandle(workflowId).describe();
    const fingerprint = existing.memo?.requestFingerprint;
    return {
      workflowId,
      created: false,
      ...(typeof fingerprint === 'string' ? { existingFingerprint: fingerprint } : {}),
    };
  }
}

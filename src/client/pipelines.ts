import { randomUUID } from 'node:crypto';
import type { Client, WorkflowExecutionStatusName, WorkflowHandle } from '@temporalio/client';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
} from '@temporalio/client';
import { PIPELINE_WORKFLOW_ID_PREFIX } from '../contracts/campaign';
import { pipelineInputSchema, type PipelineInput, type PipelineRequest } from '../contracts/pipeline-input';
import type { PipelineProgress, PipelineResult } from '../contracts/pipeline-state';
import { progressQuery, WORKFLOW_TYPES } from '../../workflows/definitions';
import type { avatarPipeline } from '../../workflows/pipeline';
import { PipelineInputError } from './input-error';
import { missingSearchAttributesError, pipelineStartMetadata } from './pipeline-start-metadata';

export interface StartPipelineOptions {
  taskQueue: string;
  /** The caller's id for this request: the same id returns the same run instead of starting a second. */
  requestId?: string;
  /**
   * The rate-limited provider task queue (providerTaskQueueOf(config)): provider calls of this
   * pipeline then count against PROVIDER_MAX_RPS with everything else, ahead of campaign work.
   * Without it they run on `taskQueue`, outside the limit.
   */
  providerTaskQueue?: string;
}

export interface PipelineHandle {
  workflowId: string;
  /** Live progress (a query: a worker must be running to answer it). */
  progress(): Promise<PipelineProgress>;
  /** Waits for the end; throws a WorkflowFailedError when the pipeline failed or was cancelled. */
  result(): Promise<PipelineResult>;
  /** Asks the pipeline to stop; it cancels its styles and ends as cancelled. */
  cancel(): Promise<void>;
  /** Temporal's state of the run: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, ... */
  status(): Promise<WorkflowExecutionStatusName>;
  /** The underlying Temporal handle, for anything else (describe, history, signals). */
  raw: WorkflowHandle<typeof avatarPipeline>;
}

export function validatePipelineRequest(request: unknown): PipelineInput {
  const parsed = pipelineInputSchema.safeParse(request);
  if (!parsed.success) throw PipelineInputError.fromZod(parsed.error);
  return parsed.data;
}

export function pipelineWorkflowId(requestId?: string): string {
  return `${PIPELINE_WORKFLOW_ID_PREFIX}${requestId ?? randomUUID()}`;
}

/** Validates, then starts one pipeline; an invalid request starts nothing. */
export async function startPipeline(
  client: Client,
  request: PipelineRequest,
  options: StartPipelineOptions,
): Promise<PipelineHandle> {
  const validated = validatePipelineRequest(request);
  const input =
    options.providerTaskQueue && !validated.providerTaskQueue
      ? { ...validated, providerTaskQueue: options.providerTaskQueue }
      : validated;
  const workflowId = pipelineWorkflowId(options.requestId);
  try {
    const handle = await client.workflow.start<typeof avatarPipeline>(WORKFLOW_TYPES.pipeline, {
      taskQueue: options.taskQueue,
      workflowId,
      args: [input],
      // A repeated request id attaches to the run it started, open or closed, instead of starting another.
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      // Lets listPipelines() show and filter by subject without custom search attributes.
      ...(input.subjectId || input.campaignId
        ? {
            memo: {
              ...(input.subjectId ? { subjectId: input.subjectId } : {}),
              ...(input.campaignId ? { campaignId: input.campaignId } : {}),
            },
          }
        : {}),
      // Search attributes (subject, campaign, stage), summary and details for the Temporal UI.
      ...pipelineStartMetadata(client, input),
    });
    return wrap(handle);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return getPipeline(client, workflowId);
    throw missingSearchAttributesError(client, err) ?? err;
  }
}

export function getPipeline(client: Client, workflowId: string): PipelineHandle {
  return wrap(client.workflow.getHandle<typeof avatarPipeline>(workflowId));
}

function wrap(handle: WorkflowHandle<typeof avatarPipeline>): PipelineHandle {
  return {
    workflowId: handle.workflowId,
    progress: () => handle.query(progressQuery),
    result: () => handle.result(),
    cancel: () => handle.cancel().then(() => undefined),
    status: () => handle.describe().then((d) => d.status.name),
    raw: handle,
  };
}

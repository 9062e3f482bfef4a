import { randomUUID } from 'node:crypto';
import type { Client, WorkflowExecutionStatusName, WorkflowHandle } from '@temporalio/client';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
} from '@temporalio/client';
import { PIPELINE_WORKFLOW_ID_PREFIX } from '../contracts/campaign';
import {
  pipelineInputSchema,
  type PipelineInput,
  type PipelineRequest,
  type PipelineWorkflowInput,
} from '../contracts/pipeline-input';
import type { PipelineProgress, PipelineResult } from '../contracts/pipeline-state';
import {
  progressQuery,
  WORKFLOW_TYPES,
  type AvatarPipelineWorkflow,
} from '../contracts/workflow-definitions';
import { PipelineInputError } from './input-error';
import { missingSearchAttributesError, pipelineStartMetadata } from './pipeline-start-metadata';

export interface StartPipelineOptions {
  taskQueue: string;
  /** The caller's id for this request: the same id returns the same run instead of starting a second. */
  requestId?: string;
  /**
   * The rate-limited provider task queue (the configuration's providerTaskQueue): provider calls of
   * this pipeline then count against PROVIDER_MAX_RPS with everything else, ahead of campaign work.
   */
  providerTaskQueue: string;
  /**
   * A digest of what the request asked for, kept in the run's memo, so that a repeated request id can
   * be told apart from a reused one (the API refuses an Idempotency-Key sent with a different request).
   */
  requestFingerprint?: string;
  /** ARCHIVE_AVATARS of the starter's configuration: copy every avatar into the blob store. */
  archiveAvatars?: boolean;
  /** The workflow id, when the caller needs it before the start (the API claims uploads for it); by default from requestId. */
  workflowId?: string;
}

export interface StartedPipeline {
  workflowId: string;
  /** false: a run with this request id existed (open or closed) and nothing was started. */
  created: boolean;
  /** When not created and a fingerprint was given: the earlier run's fingerprint, if it kept one. */
  existingFingerprint?: string;
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
  raw: WorkflowHandle<AvatarPipelineWorkflow>;
}

export function validatePipelineRequest(request: unknown): PipelineInput {
  const parsed = pipelineInputSchema.safeParse(request);
  if (!parsed.success) throw PipelineInputError.fromZod(parsed.error);
  return parsed.data;
}

export function pipelineWorkflowId(requestId?: string): string {
  return `${PIPELINE_WORKFLOW_ID_PREFIX}${requestId ?? randomUUID()}`;
}

/** Validates, then starts one pipeline (or finds the run its request id started); an invalid request starts nothing. */
export async function startPipeline(
  client: Client,
  request: PipelineRequest,
  options: StartPipelineOptions,
): Promise<PipelineHandle> {
  const run = await startPipelineRun(client, validatePipelineRequest(request), options);
  return getPipeline(client, run.workflowId);
}

/**
 * The one way pipelines are started: the API, the CLI, the demo and the client package all come
 * here, so every run carries the same memo, search attributes and provider task queue. With a
 * request id, a second start finds the first run instead (the workflow id is derived from the
 * request id and may never be reused, open or closed) and says so, which the API answers
 * differently (202 vs 200).
 */
export async function startPipelineRun(
  client: Client,
  validated: PipelineInput,
  options: StartPipelineOptions,
): Promise<StartedPipeline> {
  const input: PipelineWorkflowInput = {
    ...validated,
    providerTaskQueue: options.providerTaskQueue,
    ...(options.archiveAvatars !== undefined ? { archiveAvatars: options.archiveAvatars } : {}),
  };
  const workflowId = options.workflowId ?? pipelineWorkflowId(options.requestId);
  const memo = {
    ...(options.requestFingerprint ? { requestFingerprint: options.requestFingerprint } : {}),
    // Lets listings show the subject and campaign as given (SubjectId may hold a keyed hash).
    ...(input.subjectId ? { subjectId: input.subjectId } : {}),
    ...(input.campaignId ? { campaignId: input.campaignId } : {}),
  };
  try {
    await client.workflow.start<AvatarPipelineWorkflow>(WORKFLOW_TYPES.pipeline, {
      taskQueue: options.taskQueue,
      workflowId,
      args: [input],
      // A repeated request id finds the run it started, open (conflict) or closed (reuse), instead of starting another.
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      ...(Object.keys(memo).length > 0 ? { memo } : {}),
      // Search attributes (subject, campaign, stage), summary and details for the Temporal UI.
      ...pipelineStartMetadata(client, input),
    });
    return { workflowId, created: true };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError))
      throw missingSearchAttributesError(client, err) ?? err;
    if (!options.requestFingerprint) return { workflowId, created: false };
    const existing = await client.workflow.getHandle(workflowId).describe();
    const fingerprint = existing.memo?.requestFingerprint;
    return {
      workflowId,
      created: false,
      ...(typeof fingerprint === 'string' ? { existingFingerprint: fingerprint } : {}),
    };
  }
}

export function getPipeline(client: Client, workflowId: string): PipelineHandle {
  return wrap(client.workflow.getHandle<AvatarPipelineWorkflow>(workflowId));
}

function wrap(handle: WorkflowHandle<AvatarPipelineWorkflow>): PipelineHandle {
  return {
    workflowId: handle.workflowId,
    progress: () => handle.query(progressQuery),
    result: () => handle.result(),
    cancel: () => handle.cancel().then(() => undefined),
    status: () => handle.describe().then((d) => d.status.name),
    raw: handle,
  };
}

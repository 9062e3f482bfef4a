import { randomUUID } from 'node:crypto';
import type { Client, WorkflowExecutionStatusName, WorkflowHandle } from '@temporalio/client';
import { PIPELINE_WORKFLOW_ID_PREFIX, tenantWorkflowId, DEFAULT_TENANT } from '../contracts/workflow-ids';
import {
  pipelineInputSchema,
  type PipelineInput,
  type PipelineRequest,
  type PipelineWorkflowInput,
} from '../contracts/pipeline-input';
import type { PipelineProgress, PipelineResult } from '../contracts/pipeline-state';
import { formatDuration } from '../contracts/format-duration';
import { pollingWithin } from '../contracts/polling-bounds';
import { refuseOutOfBoundsPolling } from './polling-bounds-check';
import {
  progressQuery,
  WORKFLOW_TYPES,
  type AvatarPipelineWorkflow,
} from '../contracts/workflow-definitions';
import { reservationOf, startRunOnce, type StartedRun, type StartOptions } from './start-run';
import { InputError } from '../errors';
import { runResult } from './pipeline-failed';
import { checkSelfiesBeforeStart, runChecksOf } from './selfie-check';
import type { ReviewAnswer, ReviewDecisions } from '../contracts/review';
import { submitReview, type SubmitReviewOptions } from './review';

export interface StartPipelineOptions extends StartOptions {
  /** The workflow id, when the caller needs it before the start (the API claims uploads for it); by default from requestId. */
  workflowId?: string;
  /** The run deletes its uploaded selfies once trained (the API, for uploads under SELFIE_RETENTION=after-training). */
  deleteUploadsAfterTraining?: boolean;
}

export interface PipelineHandle {
  workflowId: string;
  /** Live progress (a query: a worker must be running to answer it). */
  progress(): Promise<PipelineProgress>;
  /** Waits for the end; throws a PipelineFailedError (a WorkflowFailedError) saying why when the run did not complete. */
  result(): Promise<PipelineResult>;
  /** Sends a reviewer's decisions (a run started with `review: { required: true }`); see submitReview. */
  review(request: ReviewDecisions, options: SubmitReviewOptions): Promise<ReviewAnswer>;
  /** Asks the pipeline to stop; it cancels its styles and ends as cancelled. */
  cancel(): Promise<void>;
  /** Temporal's state of the run: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, ... */
  status(): Promise<WorkflowExecutionStatusName>;
  /** The underlying Temporal handle, for anything else (describe, history, signals). */
  raw: WorkflowHandle<AvatarPipelineWorkflow>;
}

export function validatePipelineRequest(request: unknown): PipelineInput {
  const parsed = pipelineInputSchema.safeParse(request);
  if (!parsed.success) throw InputError.fromZod(parsed.error);
  return parsed.data;
}

/** `<tenant>.avatar-pipeline-<request id>`: one tenant's request ids never meet another's. */
export function pipelineWorkflowId(tenant: string, requestId?: string): string {
  return tenantWorkflowId(tenant, `${PIPELINE_WORKFLOW_ID_PREFIX}${requestId ?? randomUUID()}`);
}

/** Validates, then starts one pipeline (or finds the run its request id started); an invalid request starts nothing. */
export async function startPipeline(
  client: Client,
  request: PipelineRequest,
  options: StartPipelineOptions,
): Promise<PipelineHandle> {
  const validated = validatePipelineRequest(request);
  refuseOutOfBoundsPolling(request, options.pollingBounds);
  const run = await startPipelineRun(client, validated, options);
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
): Promise<StartedRun> {
  const tenant = options.tenant ?? DEFAULT_TENANT;
  const workflowId = options.workflowId ?? pipelineWorkflowId(tenant, options.requestId);
  const checks = runChecksOf(options.checks, 'at-start');
  await checkSelfiesBeforeStart(
    client,
    { workflowId, taskQueue: options.taskQueue, images: validated.images },
    checks,
  );
  const input: PipelineWorkflowInput = {
    ...validated,
    polling: pollingWithin(validated.polling, options.pollingBounds),
    tenant,
    providerTaskQueue: options.providerTaskQueue,
    ...(options.archiveAvatars ? { archiveAvatars: true } : {}),
    ...(options.pollingBounds ? { pollingBounds: options.pollingBounds } : {}),
    ...(options.deleteUploadsAfterTraining ? { deleteUploadsAfterTraining: true } : {}),
    ...(checks ? { checks } : {}),
  };
  return startRunOnce(client, {
    workflowType: WORKFLOW_TYPES.pipeline,
    workflowId,
    taskQueue: options.taskQueue,
    input,
    requestFingerprint: options.requestFingerprint,
    reserve: reservationOf(options.pricing, { trains: true, styles: input.styles.length }),
    ...pipelineDescription(input),
  });
}

/** What the Temporal UI shows for a pipeline from its start. */
function pipelineDescription(input: PipelineInput): { summary: string; details: string } {
  const who = input.subjectId ?? 'one person';
  const details = [
    `**Subject:** ${input.subjectId ?? '(none given)'}`,
    ...(input.campaignId ? [`**Campaign:** ${input.campaignId}`] : []),
    `**Selfies:** ${input.images.length} (main image: number ${input.mainImageIndex + 1})`,
    `**Styles:** ${input.styles.join(', ')}`,
    `**Gender:** ${input.gender}`,
    `**Deadlines:** training ${formatDuration(input.trainingDeadlineMs)}, each style ${formatDuration(input.generationDeadlineMs)}`,
    `**Polling:** first after ${formatDuration(input.polling.initialIntervalMs)}, between ${formatDuration(input.polling.minIntervalMs)} and ${formatDuration(input.polling.maxIntervalMs)}`,
  ];
  return {
    summary: `Avatars for ${who}: ${input.images.length} selfies, styles ${input.styles.join(', ')}`,
    details: details.join('\n'),
  };
}

export function getPipeline(client: Client, workflowId: string): PipelineHandle {
  return wrap(client, client.workflow.getHandle<AvatarPipelineWorkflow>(workflowId));
}

function wrap(client: Client, handle: WorkflowHandle<AvatarPipelineWorkflow>): PipelineHandle {
  return {
    workflowId: handle.workflowId,
    progress: () => handle.query(progressQuery),
    result: () => runResult(handle.workflowId, handle.result()),
    review: (request, options) => submitReview(client, handle.workflowId, request, options),
    cancel: () => handle.cancel().then(() => undefined),
    status: () => handle.describe().then((d) => d.status.name),
    raw: handle,
  };
}

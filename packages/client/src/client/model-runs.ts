import { randomUUID } from 'node:crypto';
import { pollingWithin } from '../contracts/polling-bounds';
import { checkSelfiesBeforeStart, runChecksOf } from './selfie-check';
import { refuseOutOfBoundsPolling } from './polling-bounds-check';
import type { Client } from '@temporalio/client';
import {
  generationInputSchema,
  trainingInputSchema,
  type GenerationInput,
  type GenerationRequest,
  type GenerationWorkflowInput,
  type TrainingInput,
  type TrainingRequest,
  type TrainingResult,
  type TrainingWorkflowInput,
} from '../contracts/model-runs';
import {
  GENERATION_WORKFLOW_ID_PREFIX,
  TRAINING_WORKFLOW_ID_PREFIX,
  tenantWorkflowId,
  DEFAULT_TENANT,
} from '../contracts/workflow-ids';
import type { PipelineProgress } from '../contracts/pipeline-state';
import type { FaceOwner } from '../contracts/quality-checks';
import { progressQuery, WORKFLOW_TYPES, type ModelTrainingWorkflow } from '../contracts/workflow-definitions';
import type { ProviderClient } from '../provider/client';
import { checkGenerationTarget, REQUEST_FIELD_NAMES, type GenerationFieldNames } from './generation-check';
import { reservationOf, startRunOnce, type StartedRun, type StartOptions } from './start-run';
import { ProviderCatalog } from './provider-catalog';
import { planRetry, RetryRefusedError, retryWorkflowId, type RetryPlan } from './retry-plan';
import { trainerOfModel } from './model-trainer';
import { tenantModelIds, tenantProviderReads } from './tenant-runs';
import { InputError } from '../errors';
import { runResult } from './pipeline-failed';

/** Where runs go and how a repeated request is recognised (as for pipelines). */
export type StartModelRunOptions = StartOptions;

/** The provider calls a generation start makes first (is the model usable, are the styles offered). */
export type ProviderReads = Pick<
  ProviderClient,
  'listModels' | 'listOrders' | 'listModelOrders' | 'listStyles'
>;

export function trainingWorkflowId(tenant: string, requestId?: string): string {
  return tenantWorkflowId(tenant, `${TRAINING_WORKFLOW_ID_PREFIX}${requestId ?? randomUUID()}`);
}

export function generationWorkflowId(tenant: string, requestId?: string): string {
  return tenantWorkflowId(tenant, `${GENERATION_WORKFLOW_ID_PREFIX}${requestId ?? randomUUID()}`);
}

export function validateTrainingRequest(request: unknown): TrainingInput {
  const parsed = trainingInputSchema.safeParse(request);
  if (!parsed.success) throw InputError.fromZod(parsed.error);
  return parsed.data;
}

export function validateGenerationRequest(request: unknown): GenerationInput {
  const parsed = generationInputSchema.safeParse(request);
  if (!parsed.success) throw InputError.fromZod(parsed.error);
  return parsed.data;
}

/** Starts a training run (selfies to a DONE model); an invalid request starts nothing. */
export async function startTraining(
  client: Client,
  request: TrainingRequest,
  options: StartModelRunOptions,
): Promise<StartedRun> {
  const validated = validateTrainingRequest(request);
  refuseOutOfBoundsPolling(request, options.pollingBounds);
  const tenant = options.tenant ?? DEFAULT_TENANT;
  const workflowId = trainingWorkflowId(tenant, options.requestId);
  const checks = runChecksOf(options.checks, 'at-start');
  await checkSelfiesBeforeStart(
    client,
    { workflowId, taskQueue: options.taskQueue, images: validated.images },
    checks,
  );
  const input: TrainingWorkflowInput = {
    ...validated,
    polling: pollingWithin(validated.polling, options.pollingBounds),
    tenant,
    providerTaskQueue: options.providerTaskQueue,
    ...(checks ? { checks } : {}),
  };
  return startRunOnce(client, {
    workflowType: WORKFLOW_TYPES.training,
    workflowId,
    taskQueue: options.taskQueue,
    input,
    requestFingerprint: options.requestFingerprint,
    reserve: reservationOf(options.pricing, { trains: true, styles: 0 }),
    summary: `Model for ${input.subjectId ?? 'one person'}: ${input.images.length} selfies`,
  });
}

/**
 * Starts a generation run under an existing model of the tenant's (one its runs trained: another
 * tenant's model is refused as the provider's unknown ids are), after asking the provider that the model is a
 * DONE model of the requested gender and that every style is offered (an InputError names
 * each field otherwise, and nothing is started). `fields` names the fields as the caller's surface
 * spells them. A request that names no subject generates for the subject the model was trained
 * for (trainerOfModel), so that erasing that subject erases these avatars too; the avatars are
 * checked against the face that model's training run recorded.
 */
export async function startGeneration(
  client: Client,
  provider: ProviderReads,
  request: GenerationRequest,
  options: StartModelRunOptions & { fields?: GenerationFieldNames },
): Promise<StartedRun> {
  const validated = validateGenerationRequest(request);
  refuseOutOfBoundsPolling(request, options.pollingBounds);
  if (validated.retry) {
    throw new InputError([{ path: 'retry', message: 'is set by retries only: use retry' }]);
  }
  const visible = tenantProviderReads(provider, () =>
    tenantModelIds(client, options.tenant ?? DEFAULT_TENANT),
  );
  await checkGenerationTarget(visible, validated, options.fields ?? REQUEST_FIELD_NAMES);
  const tenant = options.tenant ?? DEFAULT_TENANT;
  const trainedBy = await trainerOfModel(client, tenant, validated.modelId);
  const subjectId = validated.subjectId ?? trainedBy?.subjectId;
  return startGenerationRun(
    client,
    { ...validated, ...(subjectId !== undefined ? { subjectId } : {}) },
    generationWorkflowId(tenant, options.requestId),
    options,
    trainedBy,
  );
}

/**
 * Retries a run that ended PARTIAL (or failed because no style succeeded): only its styles that
 * did not end DONE are generated again, under the same model, and the new run's result lists
 * them with the DONE ones kept as they were. Refused (RetryRefusedError) for a run that is still
 * going, succeeded entirely, or failed before generating. The retry is named after the run and its
 * styles (retryWorkflowId), not after `options.requestId`: the same retry asked for twice, whatever
 * the request ids, answers the one run (created: false) and orders nothing more.
 */
export async function startRetry(
  client: Client,
  provider: ProviderReads,
  retriedId: string,
  options: StartModelRunOptions,
): Promise<StartedRun & { plan: RetryPlan }> {
  const plan = await planRetry(client, options.tenant ?? DEFAULT_TENANT, retriedId);
  const found = await new ProviderCatalog(provider).lookup(plan.modelId);
  if (found.kind !== 'model' || found.model.gender === undefined) {
    throw new RetryRefusedError(retriedId, `its model ${plan.modelId} is no longer a model at the provider`);
  }
  const input = validateGenerationRequest({
    modelId: plan.modelId,
    styles: plan.styles,
    gender: found.model.gender,
    ...(plan.subjectId ? { subjectId: plan.subjectId } : {}),
    retry: { of: retriedId, kept: plan.kept },
    ...(plan.reviewed ? { review: { required: true } } : {}),
  });
  await checkGenerationTarget(provider, input);
  const trainedBy = await trainerOfModel(client, options.tenant ?? DEFAULT_TENANT, plan.modelId);
  const run = await startGenerationRun(
    client,
    input,
    retryWorkflowId(retriedId, plan.styles),
    options,
    trainedBy,
  );
  return { ...run, plan };
}

async function startGenerationRun(
  client: Client,
  validated: GenerationInput,
  workflowId: string,
  options: StartModelRunOptions,
  trainedBy: FaceOwner | undefined,
): Promise<StartedRun> {
  const checks = runChecksOf(options.checks, undefined, trainedBy);
  const input: GenerationWorkflowInput = {
    ...validated,
    polling: pollingWithin(validated.polling, options.pollingBounds),
    tenant: options.tenant ?? DEFAULT_TENANT,
    providerTaskQueue: options.providerTaskQueue,
    ...(options.archiveAvatars ? { archiveAvatars: true } : {}),
    ...(checks ? { checks } : {}),
  };
  const what = `styles ${input.styles.join(', ')} under model ${input.modelId}`;
  return startRunOnce(client, {
    workflowType: WORKFLOW_TYPES.generation,
    workflowId,
    taskQueue: options.taskQueue,
    input,
    requestFingerprint: options.requestFingerprint,
    reserve: reservationOf(options.pricing, { trains: false, styles: input.styles.length }),
    summary: input.retry ? `Retry of ${input.retry.of}: ${what}` : `Avatars in ${what}`,
    memo: { modelId: input.modelId, ...(input.retry ? { retryOf: input.retry.of } : {}) },
  });
}

/** A training run: its progress (stages up to training) and, when it ends, the model it trained. */
export interface TrainingHandle {
  workflowId: string;
  progress(): Promise<PipelineProgress>;
  result(): Promise<TrainingResult>;
  cancel(): Promise<void>;
}

export function getTraining(client: Client, workflowId: string): TrainingHandle {
  const handle = client.workflow.getHandle<ModelTrainingWorkflow>(workflowId);
  return {
    workflowId,
    progress: () => handle.query(progressQuery),
    result: () => runResult(handle.workflowId, handle.result()),
    cancel: () => handle.cancel().then(() => undefined),
  };
}

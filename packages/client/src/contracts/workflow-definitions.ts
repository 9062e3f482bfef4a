/**
 * How clients talk to the workflows: their type names, signatures, queries, signals and updates.
 * The workflows implement these; the client, API and CLI use them without importing workflow code.
 * The campaign's own signals, queries and updates are in contracts/campaign/definitions.ts.
 */
import { defineQuery, defineUpdate } from './message-definitions';
import type { GenerationWorkflowInput, TrainingResult, TrainingWorkflowInput } from './model-runs';
import type { PipelineWorkflowInput } from './pipeline-input';
import type { PipelineProgress, PipelineResult } from './pipeline-state';
import type { ReviewAnswer, ReviewSubmission } from './review';

export const WORKFLOW_TYPES = {
  pipeline: 'avatarPipeline',
  /** Training only: selfies in, a DONE model out. */
  training: 'modelTraining',
  /** Styles generated under a model that is already DONE (also what a retry runs). */
  generation: 'avatarGeneration',
  claim: 'providerOrderClaim',
  /** A run's or campaign's webhook events, delivered in order (`<source>/webhooks`). */
  webhookDelivery: 'webhookDelivery',
  webhookRedelivery: 'webhookRedelivery',
  campaign: 'avatarCampaign',
  /** A starter's check of a run's selfies before the run starts (`<run>/selfie-check`). */
  selfieCheck: 'selfieCheck',
  /** A tenant's budget meter (`budget-meter:<tenant>`): what its provider orders cost, and what it holds reserved. */
  budgetMeter: 'budgetMeter',
} as const;

/**
 * The runs the pipeline routes act on (status, events, cancel, retry): pipelines, training runs and
 * generation runs (retries included). Any other workflow id is answered as unknown.
 */
export const RUN_WORKFLOW_TYPES: ReadonlySet<string> = new Set([
  WORKFLOW_TYPES.pipeline,
  WORKFLOW_TYPES.training,
  WORKFLOW_TYPES.generation,
]);

/** The pipeline workflow's signature, for typed handles. */
export type AvatarPipelineWorkflow = (input: PipelineWorkflowInput) => Promise<PipelineResult>;
/** The training workflow's signature, for typed handles. */
export type ModelTrainingWorkflow = (input: TrainingWorkflowInput) => Promise<TrainingResult>;
/** The generation workflow's signature, for typed handles. */
export type AvatarGenerationWorkflow = (input: GenerationWorkflowInput) => Promise<PipelineResult>;

/** Live progress of a pipeline: stage, model, uploads, training and every style. Works after close too. */
export const progressQuery = defineQuery<PipelineProgress>('progress');

/**
 * A reviewer's decisions on a run that asked for review (contracts/review.ts). The run's validator
 * refuses decisions it cannot take with an ApplicationFailure of type ReviewRefused (failure-types.ts) whose details
 * hold `{ issues: [{ path, message }] }`, paths into the submission (`decisions.0.styleId`).
 */
export const reviewUpdate = defineUpdate<ReviewAnswer, [ReviewSubmission]>('review');

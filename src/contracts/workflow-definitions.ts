/**
 * How clients talk to the workflows: their type names, signatures, queries, signals and updates.
 * The workflows implement these; the client, API and CLI use them without importing workflow code.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  CampaignInput,
  CampaignLedger,
  CampaignOutcome,
  CampaignProgress,
  RetryReport,
  RetryRequest,
  SubjectEnded,
  SubjectsErased,
} from './campaign-state';
import type { GenerationWorkflowInput, TrainingResult, TrainingWorkflowInput } from './model-runs';
import type { PipelineWorkflowInput } from './pipeline-input';
import type { PipelineProgress, PipelineResult } from './pipeline-state';

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
/** The campaign workflow's signature, for typed handles. */
export type AvatarCampaignWorkflow = (input: CampaignInput) => Promise<CampaignOutcome>;

/** Live progress of a pipeline: stage, model, uploads, training and every style. Works after close too. */
export const progressQuery = defineQuery<PipelineProgress>('progress');

/**
 * Sent by a campaign's pipeline to the campaign when it ends. Addressed by workflow id, so it
 * reaches whichever run of the campaign is current: children outlive the run that started them.
 */
export const subjectEndedSignal = defineSignal<[SubjectEnded]>('campaignSubjectEnded');

/**
 * Sent by erasure (src/client/forget-subject.ts) to a running campaign after it rewrote the
 * campaign's stored manifest: the campaign drops those subjects from the page it holds and from
 * its progress, never starts them, cancels their pipeline if it runs, and counts them cancelled.
 */
export const subjectsErasedSignal = defineSignal<[SubjectsErased]>('campaignSubjectsErased');

/** Counts by state, throughput and estimated finish; answered after the campaign closed too. */
export const campaignProgressQuery = defineQuery<CampaignProgress>('campaignProgress');

/** Every subject's status, model, avatar count and error so far (compact; joined with the manifest by clients). */
export const campaignLedgerQuery = defineQuery<CampaignLedger>('campaignLedger');

/** Stop starting subjects; those running go on. Answers the progress after the change. */
export const pauseCampaignUpdate = defineUpdate<CampaignProgress>('pauseCampaign');
export const resumeCampaignUpdate = defineUpdate<CampaignProgress>('resumeCampaign');

/** Stop starting subjects and cancel the running ones; the campaign then ends with its summary. */
export const cancelCampaignUpdate = defineUpdate<CampaignProgress>('cancelCampaign');

/** Run failed (or cancelled) subjects again; refused when a named subject cannot be retried. */
export const retryCampaignUpdate = defineUpdate<RetryReport, [RetryRequest]>('retryCampaign');

/**
 * avatar-pipeline: durable avatar pipelines on Temporal, for use from any Node application.
 *
 * Start and watch pipelines with createPipelineClient(); run the work with PipelineWorkers.create();
 * talk to the provider directly with ProviderClient; try everything locally with startSimulator()
 * (and a Temporal dev server from the repository's dev tooling: `npm run temporal:dev`).
 */

// The errors callers tell apart: every one of the package's own extends AvatarPipelineError;
// InputError (and ConfigError) is bad input, naming each field.
export { AvatarPipelineError, InputError } from './errors';
export type { InputIssue } from './errors';

// Starting, watching and listing pipelines.
export { createPipelineClient, loadTemporalConfig } from './client/pipeline-client';
export { PipelineFailedError } from './client/pipeline-failed';
export type { RunEnd } from './client/pipeline-failed';
export { TemporalUnreachableError } from './client/temporal-unreachable';
export { NamespaceNotSetUpError } from './client/start-run';
export type { PipelineClient, PipelineClientSettings, TemporalConfig } from './client/pipeline-client';
export { connectClient } from './client/connect';
export { getPipeline, pipelineWorkflowId, startPipeline, validatePipelineRequest } from './client/pipelines';
export type { PipelineHandle, StartPipelineOptions } from './client/pipelines';
export {
  listPipelinePage,
  listPipelines,
  MAX_LIST_LIMIT,
  PIPELINE_KINDS,
  PIPELINE_STATUS_FILTERS,
} from './client/list-pipelines';
export type {
  ListPipelinesOptions,
  PipelineKind,
  PipelinePage,
  PipelineStatusFilter,
  PipelineSummary,
} from './client/list-pipelines';

// Training once, generating later, retrying what did not end DONE; following progress live.
export {
  getTraining,
  generationWorkflowId,
  startGeneration,
  startRetry,
  startTraining,
  trainingWorkflowId,
  validateGenerationRequest,
  validateTrainingRequest,
} from './client/model-runs';
export type { StartModelRunOptions, TrainingHandle } from './client/model-runs';
export type { StartedRun, StartOptions } from './client/start-run';
export { checkGenerationTarget } from './client/generation-check';
export type { GenerationFieldNames, GenerationTarget } from './client/generation-check';
export { planRetry, RetryRefusedError, retryWorkflowId } from './client/retry-plan';
export type { RetryPlan } from './client/retry-plan';
export { followProgress } from './client/progress-stream';
export type { FollowProgressOptions, ProgressStreamEvent } from './client/progress-stream';
export { generationInputSchema, trainingInputSchema } from './contracts/model-runs';
export type {
  GenerationInput,
  GenerationRequest,
  TrainingInput,
  TrainingRequest,
  TrainingResult,
} from './contracts/model-runs';

// The provider's models and orders, read from the provider (no Temporal needed).
export { createProviderCatalog, ModelNotFoundError, ProviderCatalog } from './client/provider-catalog';
export type { ModelDetail, ModelSummary, OrderSummary, ProviderOrderLookup } from './client/provider-catalog';

// Batch campaigns: manifests, starting, steering and exporting.
export { startCampaign, getCampaign, newCampaignId } from './campaign/client/campaigns';
export type { CampaignHandle, StartCampaignOptions } from './campaign/client/campaigns';
export { loadStarterSettings } from './config/starter-settings';
export type { StarterSettings } from './config/starter-settings';
export { placementFrom } from './config/run-placement';
export type { PlacementSettings, RunPlacement } from './config/run-placement';
export {
  loadManifestFile,
  validateManifestText,
  validateManifestObjects,
  ManifestError,
  type ManifestIssue,
  type ManifestValidation,
} from './campaign/manifest';
export type {
  CampaignOptions,
  CampaignProgress,
  CampaignResultRow,
  CampaignSubject,
  CampaignSummary,
  SubjectSummary,
} from './campaign/contracts/campaign';

// The shapes that go in and come out.
export { pipelineInputSchema, imageReferenceSchema } from './contracts/pipeline-input';
export type { PipelineInput, PipelineRequest, PollingOptions } from './contracts/pipeline-input';
export type {
  AvatarRef,
  GenerationResult,
  GenerationStatus,
  PipelineProgress,
  PipelineResult,
  PipelineStage,
  StyleAvatar,
  StyleProgress,
  StyleStage,
} from './contracts/pipeline-state';

// Configuration from the environment.
export { loadConfig, ConfigError } from './config';
export type { AppConfig } from './config';

// Running the work.
export { createPipelineWorker, createProviderWorker } from './worker/create-worker';
export { pipelineWorkflowBundle } from './worker/workflow-bundle';
export { PipelineWorkers } from './worker/pipeline-workers';
export type { PipelineWorkerOptions } from './worker/create-worker';

// The provider: typed client and its errors.
export * from './provider';

// Local stand-ins: the provider simulator and the Temporal dev server.
export {
  startSimulator,
  DEFAULT_STYLES,
  type RunningSimulator,
  type SimulatorOptions,
  type StartSimulatorOptions,
  type SimulatorStats,
} from './simulator';

/**
 * @avatar-pipeline/client: start, watch, list, retry and cancel avatar pipelines from any Node
 * application. It talks to Temporal (and, for model lookups, to the provider) and nothing else: a
 * worker of the platform package `avatar-pipeline` runs the work.
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
export { submitReview } from './client/review';
export type { SubmitReviewOptions } from './client/review';
export type { PipelineStartRequest, SelfieInput, SelfieStore } from './client/selfie-bytes';
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

// The settings a starter reads from the environment, and where its runs are placed.
export { ConfigError } from './config/config-error';
export { loadStarterSettings } from './config/starter-settings';
export type { StarterSettings } from './config/starter-settings';
export { placementFrom } from './config/run-placement';
export type { PlacementSettings, RunPlacement } from './config/run-placement';

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
export { reviewDecisionsSchema, reviewOptionsSchema } from './contracts/review';
export type {
  ReviewAnswer,
  ReviewDecision,
  ReviewDecisions,
  ReviewOutcome,
  ReviewProgress,
  ReviewRequestOptions,
  StyleReview,
} from './contracts/review';

// How runs fail: the failure types (ApplicationFailure.type) a run's error carries.
export { FAILURE_TYPES, providerFailureType } from './contracts/failure-types';
export type { FailureType } from './contracts/failure-types';
// Batches of review decisions for a campaign's runs.
export { submitCampaignReviews } from './client/campaign-reviews';
export { campaignReviewsSchema } from './contracts/review';
export type { CampaignReviewResult, CampaignReviews } from './contracts/review';

// The provider: typed client and its errors.
export * from './provider';

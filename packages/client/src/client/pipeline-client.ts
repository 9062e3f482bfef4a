import type { Client } from '@temporalio/client';
import type { ReviewAnswer, ReviewDecisions } from '../contracts/review';
import { submitReview, type SubmitReviewOptions } from './review';
import {
  loadStarterSettings,
  parseStarterEnv,
  starterSettingsOf,
  type TemporalConfig,
} from '../config/starter-settings';
import { loadProviderSettings, type ProviderSettings } from '../config/provider-settings';
import type { RunPlacement } from '../config/run-placement';
import type { GenerationRequest, TrainingRequest } from '../contracts/model-runs';
import type { PipelineProgress, PipelineResult } from '../contracts/pipeline-state';
import { ProviderClient } from '../provider/client';
import { connectClient } from './connect';
import {
  getTraining,
  startGeneration,
  startRetry,
  startTraining,
  validateTrainingRequest,
  type TrainingHandle,
} from './model-runs';
import { checkSelfieFiles } from '../images/selfie-file-check';
import { followProgress, type FollowProgressOptions, type ProgressStreamEvent } from './progress-stream';
import { ProviderCatalog } from './provider-catalog';
import {
  listPipelinePage,
  listPipelines,
  type ListPipelinesOptions,
  type PipelinePage,
  type PipelineSummary,
} from './list-pipelines';
import { getPipeline, startPipeline, validatePipelineRequest, type PipelineHandle } from './pipelines';
import { DEFAULT_TENANT } from '../contracts/workflow-ids';
import type { Pricing } from './budget';
import {
  referencesOnly,
  startWithSelfieBytes,
  type PipelineStartRequest,
  type SelfieStore,
} from './selfie-bytes';

export type { TemporalConfig };

/**
 * Where the pipelines run and how to reach them, from the environment: TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE (defaults localhost:7233, default, avatar-pipeline), and
 * when set TEMPORAL_API_KEY, the TEMPORAL_TLS* files and ENCRYPTION_KEYS. Starting and watching
 * pipelines needs no provider settings: those belong to the worker.
 */
export function loadTemporalConfig(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): TemporalConfig {
  return loadStarterSettings(env, cwd).temporal;
}

/** Where pipelines started by this client run: the Temporal settings, plus the provider task queue. */
export type PipelineClientSettings = Partial<TemporalConfig> & {
  /**
   * Task queue of provider activities (the workers' rate-limited queue): PROVIDER_TASK_QUEUE, or
   * the workers' default (see placementFrom). Pipelines started here then count against
   * PROVIDER_MAX_RPS, ahead of campaign work.
   */
  providerTaskQueue?: string;
  /**
   * The provider, for what asks it directly (generate and retry check the model first; `models`):
   * PROVIDER_BASE_URL, PROVIDER_API_KEY and PROVIDER_TIMEOUT_MS when not given. Starting and
   * watching pipelines never needs it.
   */
  provider?: ProviderSettings;
  /**
   * The tenant this client acts for: runs it starts are the tenant's (workflow ids `<tenant>.…`,
   * AvatarTenant), and it lists, retries and generates only within the tenant. Default `default`.
   */
  tenant?: string;
  /**
   * Where selfies handed to `start` as bytes are stored for the workers (their blob store):
   * `openSelfieStore()` of `@avatar-pipeline/client/selfie-store`. Without it selfies are paths,
   * URLs or references the workers read themselves.
   */
  selfieStore?: SelfieStore;
  /**
   * What the tenant's provider work costs and may cost (the operator's tenants file): every start
   * reserves from its budget first, and one past a hard budget is refused (BudgetExceededError).
   */
  pricing?: Pricing;
};

/** Starts, finds and lists avatar pipelines on one Temporal cluster. */
export interface PipelineClient {
  readonly config: TemporalConfig;
  /** Where every run this client starts goes (task queue, provider task queue) and whether it archives. */
  readonly placement: RunPlacement;
  /** The tenant every run this client starts, lists or retries belongs to. */
  readonly tenant: string;
  /** The Temporal client underneath, for anything beyond pipelines. */
  readonly temporal: Client;
  /**
   * Validates the request and its selfies (an InputError names each bad field, `images.N` for a
   * file or bytes that are not a whole JPEG or PNG, a missing file, or one outside IMAGE_ROOTS when
   * that is set) and starts a pipeline; a refused request starts nothing. Selfies are paths, URLs,
   * references, or bytes (a Buffer or Uint8Array), which need the `selfieStore` setting. With a
   * `requestId`, repeating the call returns the run that id started instead of a second one.
   */
  start(request: PipelineStartRequest, options?: { requestId?: string }): Promise<PipelineHandle>;
  /** A handle on an existing pipeline (not checked until used). */
  get(workflowId: string): PipelineHandle;
  /** Newest first; optionally only one state, subject, campaign or kind. */
  list(options?: ListPipelinesOptions): Promise<PipelineSummary[]>;
  /** One page of the same listing, with the cursor of the next page. */
  listPage(options?: ListPipelinesOptions): Promise<PipelinePage>;
  /** Trains a model only (nothing generated); generate under it later, as often as wanted. */
  train(request: TrainingRequest, options?: { requestId?: string }): Promise<TrainingHandle>;
  /**
   * Generates styles under a model that is already DONE. The provider is asked first: a
   * InputError names `modelId`, `gender` or `styles.N` when it is not a DONE model of that
   * gender or a style is not offered, and nothing is started.
   */
  generate(request: GenerationRequest, options?: { requestId?: string }): Promise<PipelineHandle>;
  /**
   * Generates again, under the same model, the styles of a run that did not end DONE; the new
   * run's result lists every style. RetryRefusedError when there is nothing to retry.
   */
  retry(workflowId: string, options?: { requestId?: string }): Promise<PipelineHandle>;
  /**
   * A reviewer's decisions on a run that asked for review: `{ decisions: [{ styleId, decision }] }`
   * (`approve`, `reject`, `regenerate`; `avatarId` for one avatar). An InputError names each
   * decision it refuses (`decisions.0.styleId`), and then none is taken.
   */
  review(
    workflowId: string,
    request: ReviewDecisions,
    options?: Partial<SubmitReviewOptions>,
  ): Promise<ReviewAnswer>;
  /** Every change of a run's progress (queried each second by default), then its result or error (see followProgress). */
  follow(
    workflowId: string,
    options?: FollowProgressOptions,
  ): AsyncGenerator<ProgressStreamEvent<PipelineProgress, PipelineResult>>;
  /** The provider's models and their generation orders. */
  readonly models: ProviderCatalog;
  /** Closes the connection. */
  close(): Promise<void>;
}

/**
 * Connects to Temporal. Settings not given come from the environment (loadTemporalConfig).
 *
 * ```ts
 * const pipelines = await createPipelineClient();
 * const run = await pipelines.start({ images: ['/data/selfies/1.png'], styles: [3, 7], gender: 1 });
 * console.log(await run.progress(), await run.result());
 * await pipelines.close();
 * ```
 */
export async function createPipelineClient(
  settings: PipelineClientSettings = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<PipelineClient> {
  const {
    providerTaskQueue,
    provider: _provider,
    selfieStore,
    tenant = DEFAULT_TENANT,
    pricing,
    ...temporalSettings
  } = settings;
  const resolved = starterSettingsOf(env, parseStarterEnv(env), process.cwd(), {
    temporal: temporalSettings,
    ...(providerTaskQueue ? { providerTaskQueue } : {}),
  });
  const { temporal: config, placement, imageAccess } = resolved;
  const temporal = await connectClient(config);
  let provider: ProviderClient | undefined;
  const providerClient = () =>
    (provider ??= new ProviderClient(settings.provider ?? loadProviderSettings(env)));
  const runOptions = (requestId: string | undefined) => ({
    ...placement,
    tenant,
    ...(pricing ? { pricing } : {}),
    ...(requestId ? { requestId } : {}),
  });
  return {
    config,
    placement,
    tenant,
    temporal,
    start: async (request, options = {}) => {
      if (!referencesOnly(request)) {
        return startWithSelfieBytes(temporal, request, runOptions(options.requestId), {
          store: selfieStore,
          roots: imageAccess.givenRoots,
        });
      }
      const validated = validatePipelineRequest(request);
      await checkSelfieFiles(validated.images, imageAccess.givenRoots);
      // The request as the caller wrote it: the polling bounds apply to what was asked, not to defaults.
      return startPipeline(temporal, request, runOptions(options.requestId));
    },
    get: (workflowId) => getPipeline(temporal, workflowId),
    list: (options) => listPipelines(temporal, { tenant, ...options }),
    listPage: (options) => listPipelinePage(temporal, { tenant, ...options }),
    train: async (request, options = {}) => {
      const validated = validateTrainingRequest(request);
      await checkSelfieFiles(validated.images, imageAccess.givenRoots);
      return getTraining(
        temporal,
        (await startTraining(temporal, request, runOptions(options.requestId))).workflowId,
      );
    },
    generate: async (request, options = {}) =>
      getPipeline(
        temporal,
        (await startGeneration(temporal, providerClient(), request, runOptions(options.requestId)))
          .workflowId,
      ),
    retry: async (workflowId, options = {}) =>
      getPipeline(
        temporal,
        (await startRetry(temporal, providerClient(), workflowId, runOptions(options.requestId))).workflowId,
      ),
    review: (workflowId, request, options = {}) =>
      submitReview(temporal, workflowId, request, { reviewer: { via: 'client' }, ...options }),
    follow: (workflowId, options) => followProgress(temporal, workflowId, options),
    get models() {
      return new ProviderCatalog(providerClient());
    },
    close: () => temporal.connection.close(),
  };
}

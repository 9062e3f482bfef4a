import { PROVIDER_WORKER_HEARTBEATS } from './provider-heartbeats';
import {
  NativeConnection,
  Runtime,
  Worker,
  type WorkerInterceptors,
  type WorkerOptions,
} from '@temporalio/worker';
import { Client } from '@temporalio/client';
import { createBudgetActivities } from '../../activities/budget-activities';
import { createCampaignActivities } from '../../activities/campaign-activities';
import { createCheckActivities } from '../../activities/check-activities';
import { createClaimActivities } from '../../activities/claim-activities';
import { createProviderActivities } from '../../activities/provider-activities';
import { orderMeter } from '../../activities/order-meter';
import { BudgetMetrics } from './budget-metrics';
import { pricingOf } from '../config/tenants';
import { withActivityFailures } from '../../activities/provider-failure';
import { createStorageActivities } from '../../activities/storage-activities';
import { createOrderDurationActivities } from '../../activities/order-duration-activities';
import { createWebhookActivities } from '../../activities/webhook-activities';
import { avatarAddressRules, BlobLinkSigner, openBlobStore, type BlobStore } from '../storage';
import { ARCHIVE_ROUTE_PREFIX } from '../api/archive-links';
import { temporalConnectionOptions } from '@avatar-pipeline/client/client/connection-options';
import { TemporalUnreachableError } from '@avatar-pipeline/client/client/temporal-unreachable';
import { pipelineDataConverter } from '../codec/data-converter';
import type { AppConfig } from '../config/load-config';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import type { CallRecord } from '@avatar-pipeline/client/provider/http-transport';
import { providerAnswerTally } from '../../activities/provider-queue-signals';
import { createGrantedRateActivities } from '../../activities/granted-rate-activities';
import { ProviderAnswerReporter } from './provider-answer-reporter';
import { setProviderQueueRateLimit } from '../operations/provider-queue-rate';
import { combineCallObservers, providerCallObserver } from './provider-call-observer';
import { providerScope } from './provider-scope';
import type { PipelineTracing } from '../tracing/pipeline-tracing';
import { pipelineWorkflowBundle } from './workflow-bundle';
import { WebhookMetrics } from '../webhooks/webhook-metrics';

export interface PipelineWorkerOptions {
  config: Pick<
    AppConfig,
    'provider' | 'temporal' | 'imageAccess' | 'worker' | 'placement' | 'campaigns' | 'storage'
  > & {
    /** API_TENANTS_FILE's prices: with them, provider workers meter every order per tenant. */
    costs?: AppConfig['costs'];
    /** API_TENANTS_FILE's tenants: their budgets, which campaigns' subjects reserve from. */
    tenants?: AppConfig['tenants'];
    callbacks?: AppConfig['callbacks'];
    /** API_PUBLIC_URL only: the base of the API's archive links that webhook events carry. */
    api?: Pick<AppConfig['api'], 'publicUrl'>;
  };
  connection?: NativeConnection;
  onProviderCall?: (call: CallRecord) => void;
  interceptors?: WorkerInterceptors;
  /** OpenTelemetry spans for workflows and activities (PipelineTracing.start). */
  tracing?: PipelineTracing;
}

/**
 * The worker on the pipeline task queue: the bundled workflows and the light activities (webhook
 * delivery, claim checks, campaign manifest pages). Provider calls run on the provider task queue only; see
 * createProviderWorker.
 */
export async function createPipelineWorker(options: PipelineWorkerOptions): Promise<Worker> {
  const { config } = options;
  const connection = options.connection ?? (await connect(config));
  const dataConverter = pipelineDataConverter(config.temporal.encryption);
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.placement.taskQueue,
    workflowBundle: await pipelineWorkflowBundle({
      encodedFailures: dataConverter !== undefined,
      tracing: options.tracing !== undefined,
    }),
    ...(dataConverter ? { dataConverter } : {}),
    activities: {
      ...createStorageActivities({
        store: blobStoreOf(options.config),
        rules: avatarAddressRules(config.provider.baseUrl, config.storage.avatarPrivateHosts),
      }),
      ...webhookActivities(options.config),
      ...createOrderDurationActivities({ store: blobStoreOf(options.config) }),
      ...createClaimActivities(),
      ...createGrantedRateActivities(Runtime.instance().metricMeter),
      ...createCampaignActivities({
        store: blobStoreOf(options.config),
        maxCachedWorkflows: config.worker.maxCachedWorkflows,
        providerMaxRps: config.worker.providerMaxRequestsPerSecond,
      }),
      ...createBudgetActivities({
        pricingOf: (tenant) => pricingOf(config, tenant),
        metrics: new BudgetMetrics(Runtime.instance().metricMeter),
      }),
    },
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTasks,
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
    shutdownGraceTime: config.worker.shutdownGraceMs,
    ...deploymentVersion(config),
    ...observability(options),
  });
}

/**
 * An activity-only worker on the provider task queue. Every provider activity is one request, and
 * `maxTaskQueueActivitiesPerSecond` (PROVIDER_MAX_RPS) is enforced by the Temporal server for the
 * whole queue, so all workers and all campaigns together stay under the provider's quota; 429
 * answers with Retry-After are still honoured on top. Higher-priority tasks (interactive
 * pipelines) are dispatched ahead of campaign work waiting in the same queue.
 */
export async function createProviderWorker(options: PipelineWorkerOptions): Promise<Worker> {
  const { config } = options;
  const connection = options.connection ?? (await connect(config));
  const dataConverter = pipelineDataConverter(config.temporal.encryption);
  const rate = config.worker.providerMaxRequestsPerSecond;
  if (rate !== undefined && config.worker.providerRateControl === 'fixed') {
    await removeLearnedRate(options, connection);
  }
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.placement.providerTaskQueue,
    ...(dataConverter ? { dataConverter } : {}),
    activities: providerActivities(options, grantedRateReporter(options, connection)),
    ...(rate !== undefined ? { maxTaskQueueActivitiesPerSecond: rate } : {}),
    ...PROVIDER_WORKER_HEARTBEATS,
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivities,
    shutdownGraceTime: config.worker.shutdownGraceMs,
    ...deploymentVersion(config),
    ...observability(options),
  });
}

/**
 * An activity-only worker on the checks task queue: the quality checks, CPU-bound model inference
 * (about 0.6 s a selfie or an avatar on one core), as many at once as CHECK_WORKER_CONCURRENCY. Kept off the
 * provider queue, so checks never take the provider's quota or its slots; operators add check
 * workers (CHECK_WORKER=only) until checks keep pace with the provider.
 */
export async function createChecksWorker(options: PipelineWorkerOptions): Promise<Worker> {
  const { config } = options;
  const checks = config.worker.checks;
  const taskQueue = config.placement.checks?.taskQueue;
  if (!checks || !taskQueue) throw new Error('a check worker needs the checks settings and task queue');
  const connection = options.connection ?? (await connect(config));
  const dataConverter = pipelineDataConverter(config.temporal.encryption);
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue,
    ...(dataConverter ? { dataConverter } : {}),
    activities: createCheckActivities({
      imageAccess: { ...config.imageAccess, store: blobStoreOf(config) },
      thresholds: checks.thresholds,
      avatarThresholds: checks.avatarThresholds,
      store: blobStoreOf(config),
      avatarRules: avatarAddressRules(config.provider.baseUrl, config.storage.avatarPrivateHosts),
    }),
    maxConcurrentActivityTaskExecutions: checks.concurrency,
    shutdownGraceTime: config.worker.shutdownGraceMs,
    ...deploymentVersion(config),
    ...observability(options),
  });
}

/**
 * With a build id (TEMPORAL_WORKER_BUILD_ID), a process's workers poll as one Worker Deployment Version,
 * so a version's provider activities run the code its workflows were written for. Workflows are
 * pinned: a run finishes on the version it started on, and a new version takes only new runs
 * once it is made current. Campaigns, which run for days, move at their continue-as-new (see
 * workflows/campaign/campaign.ts). Without a build id the workers are unversioned.
 */
function deploymentVersion(
  config: PipelineWorkerOptions['config'],
): Pick<WorkerOptions, 'workerDeploymentOptions'> {
  const deployment = config.worker.deployment;
  if (!deployment) return {};
  return {
    workerDeploymentOptions: {
      useWorkerVersioning: true,
      version: { deploymentName: deployment.name, buildId: deployment.buildId },
      defaultVersioningBehavior: 'PINNED',
    },
  };
}

/**
 * The activity failure mapping (outermost), the caller's interceptors, plus tracing's interceptors
 * and workflow span sink when tracing is on.
 */
function observability(options: PipelineWorkerOptions): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const { tracing } = options;
  const interceptors = withActivityFailures(options.interceptors);
  if (!tracing) return { interceptors };
  const traced = tracing.workerInterceptors();
  return {
    interceptors: {
      ...interceptors,
      activity: [...(interceptors?.activity ?? []), ...(traced.activity ?? [])],
    },
    sinks: tracing.workerSinks(),
  };
}

function connect(config: PipelineWorkerOptions['config']): Promise<NativeConnection> {
  return NativeConnection.connect(temporalConnectionOptions(config.temporal)).catch((err: unknown) => {
    throw new TemporalUnreachableError(config.temporal.address, err);
  });
}

/**
 * With a ceiling (PROVIDER_MAX_RPS), the provider answers go to the rate controller, which sets the
 * provider queue's rate limit to what the provider grants (workflows/granted-rate.ts).
 */
function grantedRateReporter(
  options: PipelineWorkerOptions,
  connection: NativeConnection,
): ProviderAnswerReporter | undefined {
  const { config } = options;
  const ceiling = config.worker.providerMaxRequestsPerSecond;
  if (ceiling === undefined || config.worker.providerRateControl === 'fixed') return undefined;
  const dataConverter = pipelineDataConverter(config.temporal.encryption);
  return new ProviderAnswerReporter({
    client: new Client({
      connection,
      namespace: config.temporal.namespace,
      ...(dataConverter ? { dataConverter } : {}),
    }),
    controllerTaskQueue: config.placement.taskQueue,
    providerTaskQueue: config.placement.providerTaskQueue,
    ceiling,
    onError: (err) =>
      Runtime.instance().logger.warn('provider rate report not delivered', { error: String(err) }),
  });
}

/**
 * With PROVIDER_RATE_CONTROL=fixed, a rate the controller set earlier (adaptive before) would go on
 * overriding this worker's PROVIDER_MAX_RPS on the server: it is removed. A server without task queue
 * configuration has none to remove, so a refusal is only logged.
 */
async function removeLearnedRate(
  options: PipelineWorkerOptions,
  connection: NativeConnection,
): Promise<void> {
  const { config } = options;
  await setProviderQueueRateLimit(
    connection.workflowService,
    {
      namespace: config.temporal.namespace,
      identity: 'avatar-pipeline provider worker',
      providerTaskQueue: config.placement.providerTaskQueue,
    },
    undefined,
    'PROVIDER_RATE_CONTROL=fixed: the workers set the rate (PROVIDER_MAX_RPS)',
  ).catch((err: unknown) =>
    Runtime.instance().logger.warn('the provider queue rate limit was not removed', { error: String(err) }),
  );
}

function providerActivities(options: PipelineWorkerOptions, reporter?: ProviderAnswerReporter) {
  const { writeSettleMs, ...clientOptions } = options.config.provider;
  // The metrics, the totals the campaigns' auto window reads (activities/provider-queue-signals.ts)
  // and the rate controller's reports.
  const observeCall = combineCallObservers(
    providerCallObserver(Runtime.instance().metricMeter),
    providerAnswerTally.observe,
    ...(reporter ? [reporter.observe] : []),
  );
  const provider = new ProviderClient({
    ...clientOptions,
    onCall: options.onProviderCall ? combineCallObservers(observeCall, options.onProviderCall) : observeCall,
  });
  return createProviderActivities({
    provider,
    imageAccess: { ...options.config.imageAccess, store: blobStoreOf(options.config) },
    providerScope: providerScope(clientOptions.baseUrl),
    ...(writeSettleMs !== undefined ? { writeSettleMs } : {}),
    providerTimeoutMs: clientOptions.timeoutMs,
    meterOrder: orderMeter(options.config.costs, options.config.placement.taskQueue),
  });
}

/** Webhook delivery: endpoints and the delivery log in the blob store, secrets from the configuration. */
function webhookActivities(config: PipelineWorkerOptions['config']) {
  const store = blobStoreOf(config);
  return createWebhookActivities({
    store,
    ...(config.callbacks ?? { privateHosts: [] }),
    metrics: new WebhookMetrics(Runtime.instance().metricMeter),
    linkArchived: archiveLinker(config, store),
  });
}

/**
 * Links to archived avatars for webhook events: presigned by an S3 store; for a filesystem store,
 * the API's own signed `/archive/` links when the worker knows the API's address and the link
 * secret the API verifies with (API_PUBLIC_URL, STORAGE_LINK_SECRET); otherwise none (the event
 * then carries each avatar's archiveKey only).
 */
export function archiveLinker(config: PipelineWorkerOptions['config'], store: BlobStore) {
  const apiOrigin = config.api?.publicUrl;
  const secret = config.storage.linkSecret;
  const signer = apiOrigin && secret ? new BlobLinkSigner(secret) : undefined;
  return async (key: string): Promise<string | undefined> => {
    const presigned = await store.signedUrl(key, ARCHIVE_LINK_TTL_SECONDS);
    if (presigned !== undefined || signer === undefined) return presigned;
    return `${apiOrigin}${ARCHIVE_ROUTE_PREFIX}${signer.sign(key, Date.now() + ARCHIVE_LINK_TTL_SECONDS * 1000)}`;
  };
}

/** How long an archived avatar's link in a webhook event works. */
const ARCHIVE_LINK_TTL_SECONDS = 24 * 60 * 60;

const stores = new Map<string, BlobStore>();
/** The configured blob store (uploaded selfies, archived avatars), one per process and settings. */
function blobStoreOf(config: PipelineWorkerOptions['config']): BlobStore {
  const settings = config.storage;
  const id = JSON.stringify(settings);
  let store = stores.get(id);
  if (store === undefined) {
    store = openBlobStore(settings);
    stores.set(id, store);
  }
  return store;
}

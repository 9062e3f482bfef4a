/**
 * Records the workflow histories that test/replay/pipeline-replay.test.ts replays, so that a change
 * to workflow code that would break runs of the current version fails CI. A change that alters
 * the workflows' commands ships as a new worker version (docs/operations.md, "Deploying a change"): delete the
 * old files and record the new version's histories:
 *
 *   npm run record:histories [-- <label>]   (builds, then runs dist/scripts/record-histories.js)
 *
 * Starts its own throwaway Temporal dev server, provider simulator and pipeline workers (the same
 * ones `avatar-pipeline worker` runs, with a provider task queue), runs each main path once and
 * writes one standard history JSON file per workflow (pipeline, claim) to test/histories/.
 * Files of other labels are kept (replay must accept every one of them).
 */
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { startCampaign, type CampaignHandle } from '@avatar-pipeline/client/campaign/campaigns';
import { submitCampaignReviews } from '@avatar-pipeline/client/client/campaign-reviews';
import { listPipelines } from '@avatar-pipeline/client/client/list-pipelines';
import { openBlobStore } from '@avatar-pipeline/client/storage/open-blob-store';
import { pipelineDataConverter } from '../src/codec/data-converter';
import type { EncryptionConfig } from '@avatar-pipeline/client/codec/encryption-keys';
import {
  getTraining,
  startGeneration,
  startRetry,
  startTraining,
} from '@avatar-pipeline/client/client/model-runs';
import { getPipeline, startPipeline, type PipelineHandle } from '@avatar-pipeline/client/client/pipelines';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import type { AppConfig } from '../src/config/load-config';
import type { PipelineRequest } from '@avatar-pipeline/client/contracts/pipeline-input';
import type { PipelineProgress } from '@avatar-pipeline/client/contracts/pipeline-state';
import type { ReviewDecision } from '@avatar-pipeline/client/contracts/review';
import { findPackageRoot } from '../src/config/package-root';
import { startDevServer } from '../dev/devserver';
import { syntheticSelfiePng } from '../src/samples/synthetic-selfie';
import { sampleSelfieFiles, sampleSelfiesDir } from '../src/samples/sample-selfies';
import { loadCheckWorkerConfig } from '../src/config/load-config';
import { selfieCheckWorkflowId } from '@avatar-pipeline/client/contracts/quality-checks';
import { toUploadImage } from '@avatar-pipeline/client/provider/upload-image';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { claimWorkflowId } from '@avatar-pipeline/client/contracts/workflow-ids';
import { providerScope } from '../src/worker/provider-scope';
import { startSimulator, type RunningSimulator, type StartSimulatorOptions } from '../src/simulator';
import { PipelineWorkers } from '../src/worker/pipeline-workers';
import { fetchFamilyHistories } from '../src/histories/fetch-family';
import { historyToJson } from '../src/histories/history-json';
import { REPLAY_ENCRYPTION } from './replay-encryption';
import { budgetMeterWorkflowId } from '@avatar-pipeline/client/contracts/budget-meter';
import { DEFAULT_TENANT_SETTINGS } from '../src/config/tenants';
import { setTimeout as delay } from 'node:timers/promises';

interface Scenario {
  /** In the file names: `<label>-<name>--<workflow>.json`. */
  name: string;
  simulator: StartSimulatorOptions;
  request: Omit<PipelineRequest, 'images'>;
  /**
   * Started as the API starts a run with uploaded selfies (SELFIE_RETENTION=after-training), so
   * the run's deletion of its uploads is in the history; its selfies are files, so none is deleted.
   */
  asUploads?: boolean;
  /** What to set up at the provider and in Temporal before the pipeline starts (workers are running). */
  prepare?: (setup: ScenarioSetup) => Promise<void>;
  /** What to do while it runs; by default wait for the end. */
  drive?: (pipeline: PipelineHandle) => Promise<void>;
  /**
   * With the quality checks on (a check worker beside the others) and the sample selfies, which
   * are real faces: the starter's selfie check is recorded too.
   */
  checks?: boolean;
}

interface ScenarioSetup {
  sim: RunningSimulator;
  client: Client;
  taskQueue: string;
}

const POLLING = { initialIntervalMs: 100, minIntervalMs: 100, maxIntervalMs: 500, backoffCoefficient: 1.5 };

/** The lost-create scenario's models: the pipeline's and the two made before it share this shape. */
const LOST_CREATE_SHAPE = { styles: [3, 5], gender: 1 as const };

const SCENARIOS: Scenario[] = [
  {
    name: 'happy-path',
    simulator: {},
    request: { styles: [3, 5], gender: 1, subjectId: 'replay-happy', polling: POLLING },
    asUploads: true,
  },
  {
    name: 'style-error',
    simulator: { failStyles: [7] },
    request: { styles: [3, 7], gender: 2, subjectId: 'replay-style-error', polling: POLLING },
  },
  {
    name: 'cancelled-in-training',
    // Training never finishes on its own: the pipeline is cancelled while it polls.
    simulator: { progression: { mode: 'calls', trainingCalls: 1_000, generationCalls: 1 } },
    request: { styles: [3, 5], gender: 1, subjectId: 'replay-cancelled-training', polling: POLLING },
    asUploads: true,
    drive: (pipeline) => cancelWhen(pipeline, (p) => p.stage === 'training' && p.training.polls >= 2),
  },
  {
    name: 'cancelled-in-generation',
    // Generation never finishes on its own: cancelled while the pipeline polls every style's order.
    simulator: { progression: { mode: 'calls', trainingCalls: 2, generationCalls: 1_000 } },
    request: { styles: [3, 5], gender: 2, subjectId: 'replay-cancelled-generation', polling: POLLING },
    drive: (pipeline) =>
      cancelWhen(
        pipeline,
        (p) => p.stage === 'generating' && p.styles.every((s) => s.stage === 'polling' && s.providerStatus),
      ),
  },
  {
    name: 'lost-create',
    // Every create's answer is lost after the model is made: the create's retry reconciles and
    // returns the CREATED models of this shape, findUnclaimed drops the one another pipeline has
    // claimed, and the pipeline claims the foreign model (refused: it has a selfie), then its own.
    simulator: { loseResponseRate: 1, faultEndpoints: ['createModel'] },
    request: { ...LOST_CREATE_SHAPE, subjectId: 'replay-lost-create', polling: POLLING },
    prepare: async ({ sim, client, taskQueue }) => {
      const request = LOST_CREATE_SHAPE;
      const provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 5_000 });
      sim.setOptions({ loseResponseRate: 0 });
      // Another pipeline's model, claimed and awaiting its selfies.
      const claimed = await provider.createModel(request);
      await client.workflow.execute(WORKFLOW_TYPES.claim, {
        taskQueue,
        workflowId: claimWorkflowId(providerScope(sim.url), claimed.id),
        args: ['another-pipeline'],
      });
      // A model made elsewhere on the account (it already has a selfie): unclaimed, but never used.
      const foreign = await provider.createModel(request);
      await provider.uploadTrainingImage(foreign.id, {
        gender: 1,
        image: toUploadImage(syntheticSelfiePng(3, 64)),
      });
      sim.setOptions({ loseResponseRate: 1 });
    },
  },
  {
    name: 'quality-checks',
    // Style 5's first order shows another person: its avatars fail their checks and it is ordered again.
    simulator: { wrongAvatars: { '5': { shows: 'another-person', orders: 1 } } },
    request: { styles: [3, 5], gender: 1, subjectId: 'replay-checks', polling: POLLING },
    checks: true,
  },
  {
    name: 'review',
    // Decided before the gate opens (style 3 approved, style 5 ordered again), then style 5's new
    // order approved once it is under review.
    simulator: {},
    request: {
      styles: [3, 5],
      gender: 1,
      subjectId: 'replay-review',
      polling: POLLING,
      review: { required: true },
    },
    drive: async (pipeline) => {
      const by = { reviewer: { via: 'replay' } };
      const decide = (decisions: ReviewDecision[]) => pipeline.review({ decisions }, by);
      await decide([
        { styleId: 3, decision: 'approve' },
        { styleId: 5, decision: 'regenerate' },
      ]);
      await waitFor(pipeline, (p) => p.review?.styles.some((s) => s.styleId === 5 && s.state === 'awaiting'));
      await decide([{ styleId: 5, decision: 'approve' }]);
      await pipeline.result();
    },
  },
];

/** The checks as the environment's defaults set them, one regeneration. */
const CHECKS = { selfies: true, avatars: true, avatarRegenerations: 1 };

async function cancelWhen(
  pipeline: PipelineHandle,
  ready: (progress: PipelineProgress) => boolean | undefined,
): Promise<void> {
  await waitFor(pipeline, ready);
  await pipeline.cancel();
}

async function waitFor(
  pipeline: PipelineHandle,
  ready: (progress: PipelineProgress) => boolean | undefined,
): Promise<void> {
  while (!ready(await pipeline.progress())) await new Promise((resolve) => setTimeout(resolve, 100));
}

async function main(): Promise<void> {
  // Files are named <label>-<scenario>--<workflow>.json. Default label: today, e.g. 20261122.
  const label = process.argv[2] ?? new Date().toISOString().slice(0, 10).replaceAll('-', '');
  // Optionally only some scenarios: `npm run record:histories -- <label> campaign`.
  const only = process.argv.slice(3);
  if (!/^[A-Za-z0-9_.]+$/.test(label)) throw new Error(`label "${label}": letters, digits, _ and . only`);
  // The style that fails and the cancellations make the worker log warnings by design.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const outDir = path.join(findPackageRoot(), 'test', 'histories');
  await mkdir(outDir, { recursive: true });
  const scratch = await mkdtemp(path.join(tmpdir(), 'record-histories-'));
  const server = await startDevServer({ dbFile: path.join(scratch, 'temporal.db'), ui: false });
  try {
    const selfies = [1, 2].map((i) => path.join(scratch, `selfie-${i}.png`));
    await Promise.all(selfies.map((file, i) => writeFile(file, syntheticSelfiePng(i + 1, 64))));
    const connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, namespace: server.namespace });
    const workerConnection = await NativeConnection.connect({ address: server.address });
    try {
      const context = { label, server, client, workerConnection, selfies, outDir, scratch };
      for (const scenario of SCENARIOS) {
        if (only.length > 0 && !only.includes(scenario.name)) continue;
        const written = await record(scenario, context);
        console.log(`${scenario.name}: ${written.join(', ')}`);
      }
      if (only.length === 0 || only.includes('model-runs')) {
        console.log(`model-runs: ${(await recordModelRuns(context)).join(', ')}`);
      }
      if (only.length === 0 || only.includes('campaign')) {
        console.log(`campaign: ${(await recordCampaign(context)).join(', ')}`);
      }
      if (only.length === 0 || only.includes('campaign-encrypted')) {
        const encrypted = await recordCampaign(context, { encryption: REPLAY_ENCRYPTION });
        console.log(`campaign-encrypted: ${encrypted.join(', ')}`);
      }
      if (only.length === 0 || only.includes('campaign-review')) {
        console.log(`campaign-review: ${(await recordCampaign(context, { review: true })).join(', ')}`);
      }
      if (only.length === 0 || only.includes('campaign-budget')) {
        console.log(`campaign-budget: ${(await recordBudgetCampaign(context)).join(', ')}`);
      }
    } finally {
      await connection.close();
      await workerConnection.close();
    }
  } finally {
    await server.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

interface RecordContext {
  label: string;
  server: { address: string; namespace: string };
  client: Client;
  workerConnection: NativeConnection;
  selfies: string[];
  outDir: string;
  scratch: string;
}

async function record(scenario: Scenario, context: RecordContext): Promise<string[]> {
  const sim: RunningSimulator = await startSimulator({
    progression: { mode: 'calls', trainingCalls: 2, generationCalls: 1 },
    avatarsPerOrder: 4,
    ...scenario.simulator,
  });
  try {
    const taskQueue = `record-${scenario.name}`;
    const config = configFor(sim, taskQueue, context, scenario.checks);
    const workers = await PipelineWorkers.create({ config, connection: context.workerConnection });
    const workflowId = await workers.runUntil(async () => {
      await scenario.prepare?.({ sim, client: context.client, taskQueue });
      const pipeline = await startPipeline(
        context.client,
        { images: scenario.checks ? sampleSelfieFiles() : context.selfies, ...scenario.request },
        {
          ...config.placement,
          ...(scenario.asUploads ? { deleteUploadsAfterTraining: true } : {}),
        },
      );
      if (scenario.drive) await scenario.drive(pipeline);
      await pipeline.result().catch((err: unknown) => {
        if (!(err instanceof WorkflowFailedError)) throw err;
      });
      return pipeline.workflowId;
    });

    return [
      ...(await writeFamily(context, scenario.name, workflowId, 'pipeline')),
      ...(scenario.checks
        ? await writeFamily(context, scenario.name, selfieCheckWorkflowId(workflowId), 'selfie-check')
        : []),
    ];
  } finally {
    await sim.stop();
  }
}

/**
 * Train once, generate later, retry: a training run, a generation run under its model in which
 * one style ends in ERROR, and the retry that generates that style again once the fault is gone.
 */
async function recordModelRuns(context: RecordContext): Promise<string[]> {
  const sim = await startSimulator({
    progression: { mode: 'calls', trainingCalls: 2, generationCalls: 1 },
    avatarsPerOrder: 4,
    failStyles: [7],
  });
  try {
    const taskQueue = 'record-model-runs';
    const config = configFor(sim, taskQueue, context);
    const provider = new ProviderClient(config.provider);
    const options = placementFrom({ taskQueue });
    const workers = await PipelineWorkers.create({ config, connection: context.workerConnection });
    const ids = await workers.runUntil(async () => {
      const training = await startTraining(
        context.client,
        { images: context.selfies, styles: [3], gender: 1, subjectId: 'replay-model', polling: POLLING },
        options,
      );
      const { modelId } = await getTraining(context.client, training.workflowId).result();
      const generation = await startGeneration(
        context.client,
        provider,
        { modelId, styles: [3, 7], gender: 1, subjectId: 'replay-model', polling: POLLING },
        options,
      );
      await getPipeline(context.client, generation.workflowId).result();
      sim.setOptions({ failStyles: [] });
      const retry = await startRetry(context.client, provider, generation.workflowId, {
        ...options,
        requestId: 'r1',
      });
      await getPipeline(context.client, retry.workflowId).result();
      return { training: training.workflowId, generation: generation.workflowId, retry: retry.workflowId };
    });
    return [
      ...(await writeFamily(context, 'model-runs', ids.training, 'training')),
      ...(await writeFamily(context, 'model-runs', ids.generation, 'generation')),
      ...(await writeFamily(context, 'model-runs-retry', ids.retry, 'retry')),
    ];
  } finally {
    await sim.stop();
  }
}

/**
 * A campaign of two subjects (one whose style ends in ERROR) through the same workers: the
 * campaign workflow, each subject's pipeline, and their styles and claims. With `encryption`,
 * payloads are encrypted with the throwaway replay key, and subject ids appear only as keyed hashes.
 * With `review`, every subject's run waits at its gate (telling the campaign), and a reviewer
 * approves each batch of waiting runs as it comes.
 */
async function recordCampaign(
  context: RecordContext,
  { encryption, review = false }: { encryption?: EncryptionConfig; review?: boolean } = {},
): Promise<string[]> {
  const sim = await startSimulator({
    progression: { mode: 'calls', trainingCalls: 2, generationCalls: 1 },
    avatarsPerOrder: 4,
    failStyles: [7],
  });
  const name = encryption ? 'campaign-encrypted' : review ? 'campaign-review' : 'campaign';
  const dataConverter = pipelineDataConverter(encryption);
  const client = dataConverter
    ? new Client({
        connection: context.client.connection,
        namespace: context.server.namespace,
        dataConverter,
      })
    : context.client;
  try {
    const taskQueue = `record-${name}`;
    const base = configFor(sim, taskQueue, context);
    const config = encryption ? { ...base, temporal: { ...base.temporal, encryption } } : base;
    const workers = await PipelineWorkers.create({ config, connection: context.workerConnection });
    const campaignId = await workers.runUntil(async () => {
      const campaign = await startCampaign(
        client,
        [
          {
            subjectId: 'replay-c1',
            gender: 1,
            styles: [3, 5],
            images: context.selfies,
            mainImageIndex: 0,
            row: 2,
          },
          {
            subjectId: 'replay-c2',
            gender: 2,
            styles: [3, 7],
            images: context.selfies,
            mainImageIndex: 1,
            row: 3,
          },
        ],
        {
          ...placementFrom({ taskQueue }),
          store: openBlobStore(config.storage!),
          campaignId: `replay-${name}`,
          options: { maxInFlight: 2, polling: POLLING, ...(review ? { review: { required: true } } : {}) },
        },
      );
      if (review) await approveAsTheyArrive(client, campaign);
      await campaign.result();
      return campaign.campaignId;
    });
    return await writeFamily(context, name, campaignId, 'campaign');
  } finally {
    await sim.stop();
  }
}

/**
 * A priced campaign of two subjects (14 credits each) under a budget of 25: the first runs, the
 * second is refused and the campaign pauses; the budget is raised to 100 and the campaign
 * resumed, and both end DONE. Written: the campaign's family and the tenant's budget meter (still
 * running, as meters always are: replayed as far as it got).
 */
async function recordBudgetCampaign(context: RecordContext): Promise<string[]> {
  const sim = await startSimulator({
    progression: { mode: 'calls', trainingCalls: 2, generationCalls: 1 },
    avatarsPerOrder: 2,
  });
  const name = 'campaign-budget';
  const tenant = 'replay-budget';
  try {
    const taskQueue = `record-${name}`;
    const budget = { credits: 25, period: 'none' as const, mode: 'hard' as const, alerts: [50, 80, 100] };
    const config: AppConfig = {
      ...configFor(sim, taskQueue, context),
      costs: { training: 10, generation: 2 },
      tenants: { [tenant]: { ...DEFAULT_TENANT_SETTINGS, budget } },
    };
    const workers = await PipelineWorkers.create({ config, connection: context.workerConnection });
    const campaignId = await workers.runUntil(async () => {
      const subject = (n: number, gender: 1 | 2) => ({
        subjectId: `replay-b${n}`,
        gender,
        styles: [3, 5],
        images: context.selfies,
        mainImageIndex: 0,
        row: n + 1,
      });
      const campaign = await startCampaign(context.client, [subject(1, 1), subject(2, 2)], {
        ...placementFrom({ taskQueue }),
        tenant,
        store: openBlobStore(config.storage!),
        campaignId: `replay-${name}`,
        options: { maxInFlight: 2, polling: POLLING },
        pricing: { costs: config.costs!, budget },
      });
      while ((await campaign.progress()).state !== 'paused') await delay(200);
      // The operator raises the budget (the workers read it at each reservation) and resumes.
      budget.credits = 100;
      await campaign.resume();
      await campaign.result();
      return campaign.campaignId;
    });
    return [
      ...(await writeFamily(context, name, campaignId, 'campaign')),
      ...(await writeFamily(context, name, budgetMeterWorkflowId(tenant), 'budget-meter')),
    ];
  } finally {
    await sim.stop();
  }
}

/** A reviewer who approves every run of the campaign that waits at its gate, until the campaign ends. */
async function approveAsTheyArrive(client: Client, campaign: CampaignHandle): Promise<void> {
  let ended = false;
  void campaign.result().finally(() => (ended = true));
  while (!ended) {
    const waiting = await listPipelines(client, {
      campaignId: campaign.campaignId,
      status: 'awaiting-review',
    });
    if (waiting.length > 0) {
      const reviews = waiting.map(({ workflowId }) => ({ workflowId, decision: 'approve' as const }));
      await submitCampaignReviews(client, campaign.campaignId, { reviews }, { reviewer: { via: 'replay' } });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function configFor(
  sim: RunningSimulator,
  taskQueue: string,
  context: RecordContext,
  checks = false,
): AppConfig {
  return {
    provider: { baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 5_000 },
    placement: placementFrom({ taskQueue, ...(checks ? { checks: CHECKS } : {}) }),
    temporal: { address: context.server.address, namespace: context.server.namespace, taskQueue },
    imageAccess: { roots: [path.dirname(context.selfies[0]!), sampleSelfiesDir()], urlHosts: [] },
    api: { tokens: [], port: 0, host: '127.0.0.1', blobDir: tmpdir(), maxFileBytes: 1 },
    callbacks: { privateHosts: [] },
    campaigns: { maxInFlight: 2 },
    storage: {
      target: { kind: 'fs', dir: path.join(context.scratch, 'blobs') },
      s3: { endpoint: undefined, region: 'us-east-1', credentials: undefined, forcePathStyle: false },
    },
    worker: {
      maxConcurrentActivities: 10,
      maxConcurrentWorkflowTasks: 10,
      maxCachedWorkflows: 10,
      shutdownGraceMs: 1_000,
      ...(checks ? { checks: loadCheckWorkerConfig({}) } : {}),
    },
  };
}

async function writeFamily(
  context: RecordContext,
  scenario: string,
  rootId: string,
  rootRole: 'pipeline' | 'campaign' | 'training' | 'generation' | 'retry' | 'selfie-check' | 'budget-meter',
): Promise<string[]> {
  const histories = await fetchFamilyHistories(context.client, rootId);
  const written: string[] = [];
  for (const [id, history] of histories) {
    const file = `${context.label}-${scenario}--${roleOf(id, rootId, rootRole)}.json`;
    await writeFile(
      path.join(context.outDir, file),
      `${JSON.stringify(JSON.parse(historyToJson(history)))}\n`,
    );
    written.push(file);
  }
  return written;
}

/** pipeline, claim-model-1001 (campaign, replay-c1): stable names for the workflows of one run. */
function roleOf(id: string, rootId: string, rootRole: string): string {
  if (id === rootId) return rootRole;
  // Children of an encrypted campaign are named by keyed hash (`<keyId>.<hash>`).
  if (id.startsWith(`${rootId}/`))
    return id
      .slice(rootId.length + 1)
      .replaceAll('/', '-')
      .replace(/[^A-Za-z0-9-]+/g, '_');
  const claim = /:model:(\d+)$/.exec(id);
  if (claim) return `claim-model-${claim[1]}`;
  return id.replace(/[^A-Za-z0-9-]+/g, '_');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

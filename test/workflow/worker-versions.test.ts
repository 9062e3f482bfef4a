import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { temporal } from '@temporalio/proto';
import { setTimeout as delay } from 'node:timers/promises';
import { startCampaign } from '@avatar-pipeline/client/campaign/campaigns';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import type { AppConfig } from '../../src/config/load-config';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { subjects } from '../helpers/campaign-rig';
import { fsStorage, testConfig } from '../helpers/pipeline-worker';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, makeScratchDir, uniqueName } from '../helpers/temporal-env';

type History = temporal.api.history.v1.IHistory;

/** Status polls every 200 ms; training takes 40 of them, so a pipeline is in training for 8 s or more. */
const POLLING = {
  initialIntervalMs: 200,
  minIntervalMs: 200,
  maxIntervalMs: 200,
  maxProgressIntervalMs: 200,
  backoffCoefficient: 1,
};

describe('worker deployment versions on the dev server', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  const running: PipelineWorkers[] = [];
  const runs: Promise<void>[] = [];

  beforeAll(async () => {
    env = await createDevServerEnv();
    sim = await startSimulator({
      progression: { mode: 'calls', trainingCalls: 40, generationCalls: 1 },
      avatarsPerOrder: 2,
    });
  });
  afterAll(async () => {
    for (const workers of running) workers.shutdown();
    await Promise.allSettled(runs);
    await sim?.stop();
    await env?.teardown();
  });

  test('pipelines stay on the version they started on; a campaign moves at its continue-as-new', async () => {
    const selfies = await writeSelfies(1, 'versions-selfies-');
    const blobDir = await makeScratchDir('versions-blobs');
    const taskQueue = uniqueName('versions');
    const placement = placementFrom({ taskQueue });
    const deploymentName = uniqueName('avatar-pipeline');
    const base = testConfig({
      namespace: env.namespace,
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
    });

    /** Both workers of one build, polling as that Worker Deployment Version. */
    const startVersion = async (buildId: string) => {
      const config: AppConfig = {
        ...base,
        placement,
        campaigns: { maxInFlight: 1 },
        storage: fsStorage(blobDir),
        worker: { ...base.worker, deployment: { name: deploymentName, buildId } },
      };
      const workers = await PipelineWorkers.create({ config, connection: env.nativeConnection });
      running.push(workers);
      runs.push(workers.run());
      await setCurrentVersion(buildId);
    };
    /** As `temporal worker deployment set-current-version` does; the version exists once its workers poll. */
    const setCurrentVersion = async (buildId: string) => {
      for (let attempt = 0; ; attempt++) {
        try {
          await env.client.workflowService.setWorkerDeploymentCurrentVersion({
            namespace: env.namespace ?? 'default',
            deploymentName,
            buildId,
            identity: 'worker-versions.test',
          });
          return;
        } catch (err) {
          if (attempt >= 100) throw err;
          await delay(200);
        }
      }
    };

    await startVersion('A');
    const pipelineOnA = await startPipeline(
      env.client,
      { images: selfies.files, styles: [3], gender: 1, polling: POLLING },
      placement,
    );
    const campaign = await startCampaign(env.client, subjects(2, selfies.files[0]!, [3]), {
      ...placement,
      store: new FsBlobStore(blobDir),
      campaignId: uniqueName('versions-campaign'),
      options: { maxInFlight: 1, polling: POLLING },
    });
    const firstCampaignRun = (await campaign.raw.describe()).runId;
    // Both are mid-training (on A) when B becomes current.
    while ((await pipelineOnA.progress()).training.polls < 2) await delay(100);
    await startVersion('B');
    const switchedAt = Date.now();
    const pipelineOnB = await startPipeline(
      env.client,
      { images: selfies.files, styles: [3], gender: 2, polling: POLLING },
      placement,
    );

    const [resultA, resultB, summary] = await Promise.all([
      pipelineOnA.result(),
      pipelineOnB.result(),
      campaign.result(),
    ]);
    expect([resultA.status, resultB.status, summary.succeeded]).toEqual(['DONE', 'DONE', 2]);

    const historyOf = (workflowId: string, runId?: string) =>
      env.client.workflow.getHandle(workflowId, runId).fetchHistory();

    // The pipeline started on A went on working after B became current, and only ever on A.
    const historyA = await historyOf(pipelineOnA.workflowId);
    expect(lastTaskAt(historyA)).toBeGreaterThan(switchedAt);
    expect(buildIds(historyA)).toEqual(['A']);
    // The pipeline started after the switch ran on B.
    expect(buildIds(await historyOf(pipelineOnB.workflowId))).toEqual(['B']);

    // The campaign's first run (and its subject) stayed on A. Far below subjectsPerRun, it still
    // continued as new once its subject was done, because B had become current: the next run is on B.
    const [first, second] = summary.subjects.map((s) => s.workflowId);
    expect(buildIds(await historyOf(campaign.campaignId, firstCampaignRun))).toEqual(['A']);
    expect(buildIds(await historyOf(first!))).toEqual(['A']);
    expect(buildIds(await historyOf(campaign.campaignId))).toEqual(['B']);
    expect(buildIds(await historyOf(second!))).toEqual(['B']);
  }, 240_000);
});

/** The build ids of the workers that completed the run's workflow tasks. */
function buildIds(history: History): string[] {
  const ids = (history.events ?? []).flatMap((event) => {
    const id = event.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId;
    return event.workflowTaskCompletedEventAttributes ? [id ?? '(unversioned)'] : [];
  });
  return [...new Set(ids)];
}

/** When the run's last workflow task completed, in ms since the epoch. */
function lastTaskAt(history: History): number {
  const last = (history.events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes).at(-1);
  const seconds = Number(last?.eventTime?.seconds ?? 0);
  return seconds * 1000 + Math.floor((last?.eventTime?.nanos ?? 0) / 1e6);
}

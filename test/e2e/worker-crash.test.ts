import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { startSimulator, type OrderStats, type RunningSimulator } from '../../src/simulator';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { expectNoDuplicates } from '../helpers/provider-stats-checks';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, devServerUnderTest, uniqueName } from '../helpers/temporal-env';
import {
  killAllSpawned,
  requireCompiledCli,
  startWorkerProcess,
  waitFor,
  type CliProcess,
} from '../helpers/worker-process';

const SELFIES = 4;
const STYLES = [3, 5, 7];

describe('a worker process killed with SIGKILL mid-upload and again mid-poll', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let selfies: { dir: string; files: string[] };

  beforeAll(async () => {
    requireCompiledCli();
    env = await createDevServerEnv();
    selfies = await writeSelfies(SELFIES, 'crash-selfies-');
    sim = await startSimulator({
      basePath: uniqueBasePath('crash'),
      progression: { mode: 'wall', trainingMs: 8_000, generationMs: 1_000 },
      // Every upload is held 3 s before the provider stores it: the window to kill the worker in.
      faultEndpoints: ['uploadTrainingImage'],
      slowRate: 1,
      slowMs: 3_000,
      seed: 11,
    });
  });
  afterAll(async () => {
    await killAllSpawned();
    await sim?.stop();
    await env?.teardown();
  });

  test('a new worker finishes the pipeline: the cut-off upload is adopted, nothing is written twice', async () => {
    const { address, namespace } = devServerUnderTest();
    const taskQueue = uniqueName('crash');
    const workerEnv = {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      PROVIDER_BASE_URL: sim.url,
      PROVIDER_API_KEY: 'sim-key',
      PROVIDER_TIMEOUT_MS: '10000',
      // The retry of the upload the kill cut off waits PROVIDER_TIMEOUT_MS plus this before it
      // looks (its attempt left no mark); the 3 s hold settles well within it.
      PROVIDER_WRITE_SETTLE_MS: '5000',
      IMAGE_ROOTS: selfies.dir,
    };
    const model = (): OrderStats | undefined => sim.stats().orders.find((o) => o.kind === 'model');
    const uploadRequests = () => sim.stats().requests.byEndpoint.uploadTrainingImage ?? 0;
    const kill = async (worker: CliProcess) => {
      worker.child.kill('SIGKILL');
      expect(await worker.exited).toBe('SIGKILL');
    };

    const first = await startWorkerProcess(workerEnv);
    const pipeline = await startPipeline(
      env.client,
      { images: selfies.files, styles: STYLES, gender: 1, polling: FAST_POLLING },
      placementFrom({ taskQueue }),
    );

    // Mid-upload: the second selfie has reached the provider, which has not stored it yet.
    await waitFor('the second upload to reach the provider', () => uploadRequests() >= 2);
    await kill(first);
    expect(model()?.uploads).toBe(1);
    sim.setOptions({ slowRate: 0 });
    // The provider completes the request of the dead worker: an image the pipeline never heard of.
    await waitFor('the cut-off upload to be stored', () => model()?.uploads === 2, 10_000);

    const second = await startWorkerProcess(workerEnv);
    // Mid-poll: training runs 8 s; kill once it has been polled twice.
    await waitFor('training to be polled twice', () => (model()?.statusCalls ?? 0) >= 2, 60_000);
    expect(model()?.status).not.toBe('DONE');
    await kill(second);

    const third = await startWorkerProcess(workerEnv);
    const result = await pipeline.result();
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);

    expect(result.status).toBe('DONE');
    expect(result.generations.map((g) => [g.styleId, g.status, g.avatars.length])).toEqual(
      STYLES.map((s) => [s, 'DONE', 8]),
    );
    const stats = sim.stats();
    expectNoDuplicates(stats, [result], { selfies: SELFIES, styles: STYLES });
    // The retry after the crash found the stored image instead of sending it again.
    expect(uploadRequests()).toBe(SELFIES);
    expect(stats.totals).toMatchObject({
      modelsCreated: 1,
      generationOrdersCreated: STYLES.length,
      uploads: SELFIES,
      runs: 1 + STYLES.length,
    });
  }, 150_000);
});

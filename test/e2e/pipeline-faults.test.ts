import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { createTestWorker } from '../helpers/pipeline-worker';
import { expectNoDuplicates } from '../helpers/provider-stats-checks';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, uniqueName } from '../helpers/temporal-env';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';

// Hundreds of activity attempts fail here by design; the worker's WARN line for each would bury
// a real failure. Set before the first worker creates the runtime.
Runtime.defaultOptions = { ...Runtime.defaultOptions, logger: new DefaultLogger('ERROR') };

const PIPELINES = 20;
const SELFIES = 4;
const STYLES = [3, 5, 7];

describe('pipelines against a provider that loses answers and fails (dev server)', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let selfies: { dir: string; files: string[] };

  beforeAll(async () => {
    env = await createDevServerEnv();
    selfies = await writeSelfies(SELFIES, 'fault-selfies-');
    sim = await startSimulator({
      basePath: uniqueBasePath('faults'),
      progression: { mode: 'wall', trainingMs: 1_500, generationMs: 1_000 },
      // 20% of committed writes lose their answer; 10% of all requests get a 5xx instead.
      loseResponseRate: 0.2,
      fail5xxRate: 0.1,
      seed: 20_240_917,
    });
  });
  afterAll(async () => {
    await sim?.stop();
    await env?.teardown();
  });

  test(`${PIPELINES} pipelines all finish with exactly one model, ${SELFIES} uploads and ${STYLES.length} orders each, every order run once`, async () => {
    const taskQueue = uniqueName('faults');
    const worker = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
    });
    const results: PipelineResult[] = await worker.runUntil(async () => {
      const handles = await Promise.all(
        Array.from({ length: PIPELINES }, () =>
          startPipeline(
            env.client,
            { images: selfies.files, styles: STYLES, gender: 1, polling: FAST_POLLING },
            placementFrom({ taskQueue }),
          ),
        ),
      );
      return Promise.all(handles.map((h) => h.result()));
    });

    for (const result of results) {
      expect(result.status).toBe('DONE');
      expect(result.generations.map((g) => [g.styleId, g.status, g.avatars.length])).toEqual(
        STYLES.map((s) => [s, 'DONE', 8]),
      );
    }
    const stats = sim.stats();
    // The faults really happened, on the writes the pipeline must reconcile.
    expect(stats.faults.lostResponses).toBeGreaterThanOrEqual(20);
    expect(stats.faults.serverErrors).toBeGreaterThanOrEqual(20);
    expectNoDuplicates(stats, results, { selfies: SELFIES, styles: STYLES });
    expect(stats.totals).toMatchObject({
      modelsCreated: PIPELINES,
      generationOrdersCreated: PIPELINES * STYLES.length,
      uploads: PIPELINES * SELFIES,
      runs: PIPELINES * (1 + STYLES.length),
    });
  }, 180_000);
});

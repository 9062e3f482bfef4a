import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { startPipeline, type PipelineHandle } from '@avatar-pipeline/client/client/pipelines';
import type { PipelineProgress } from '@avatar-pipeline/client/contracts/pipeline-state';
import { PipelineStageAttribute } from '@avatar-pipeline/client/contracts/search-attributes';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, devServerUnderTest, uniqueName } from '../helpers/temporal-env';
import {
  killAllSpawned,
  requireCompiledCli,
  startWorkerProcess,
  waitFor,
  type CliProcess,
} from '../helpers/worker-process';

const reviewer = { reviewer: { via: 'test' } };

describe('a run held for review through worker SIGKILLs', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let selfies: { dir: string; files: string[] };

  beforeAll(async () => {
    requireCompiledCli();
    env = await createDevServerEnv();
    selfies = await writeSelfies(2, 'review-crash-selfies-');
    sim = await startSimulator({
      basePath: uniqueBasePath('review-crash'),
      progression: { mode: 'wall', trainingMs: 1_000, generationMs: 1_000 },
    });
  });
  afterAll(async () => {
    await killAllSpawned();
    await sim?.stop();
    await env?.teardown();
  });

  test('it waits at the gate across kills; regenerate makes exactly one new order; only approved styles end in the result', async () => {
    const { address, namespace } = devServerUnderTest();
    const taskQueue = uniqueName('review-crash');
    const workerEnv = {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      PROVIDER_BASE_URL: sim.url,
      PROVIDER_API_KEY: 'sim-key',
      IMAGE_ROOTS: selfies.dir,
    };
    const kill = async (worker: CliProcess) => {
      worker.child.kill('SIGKILL');
      expect(await worker.exited).toBe('SIGKILL');
    };
    const progressOf = (pipeline: PipelineHandle) =>
      pipeline.progress().catch((): PipelineProgress | undefined => undefined);
    const styleState = async (pipeline: PipelineHandle, styleId: number) =>
      (await progressOf(pipeline))?.review?.styles.find((s) => s.styleId === styleId)?.state;

    const first = await startWorkerProcess(workerEnv);
    const pipeline = await startPipeline(
      env.client,
      {
        images: selfies.files,
        styles: [3, 5, 7],
        gender: 1,
        polling: FAST_POLLING,
        review: { required: true },
      },
      placementFrom({ taskQueue }),
    );
    await waitFor(
      'the run to wait for review',
      async () => (await progressOf(pipeline))?.stage === 'awaiting-review',
      60_000,
    );
    const atGate = await pipeline.raw.describe();
    expect(atGate.typedSearchAttributes.get(PipelineStageAttribute)).toBe('awaiting-review');
    await kill(first);

    // Decisions wait for a worker to take them: the next one does, from the run's history.
    const second = await startWorkerProcess(workerEnv);
    const answer = await pipeline.review(
      {
        decisions: [
          { styleId: 3, decision: 'approve' },
          { styleId: 5, decision: 'regenerate' },
          { styleId: 5, decision: 'regenerate' },
          { styleId: 7, decision: 'reject' },
        ],
      },
      reviewer,
    );
    expect(answer.results.map((r) => r.effect)).toEqual(['applied', 'applied', 'repeated', 'applied']);
    await waitFor(
      'style 5 to be under review again',
      async () => (await styleState(pipeline, 5)) === 'awaiting',
      60_000,
    );
    await kill(second);

    const third = await startWorkerProcess(workerEnv);
    // The same regenerate again, naming the order it replaced: one decision, no third order.
    const replaced = answer.review.styles.find((s) => s.styleId === 5)!.regeneratedOrders[0]!;
    const repeat = await pipeline.review(
      { decisions: [{ styleId: 5, decision: 'regenerate', orderId: replaced }] },
      reviewer,
    );
    expect(repeat.results[0]!.effect).toBe('repeated');
    await pipeline.review({ decisions: [{ styleId: 5, decision: 'approve' }] }, reviewer);
    const result = await pipeline.result();
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);

    expect(result.generations.map((g) => [g.styleId, g.status])).toEqual([
      [3, 'DONE'],
      [5, 'DONE'],
    ]);
    expect(result.generations.find((g) => g.styleId === 5)!.orderId).not.toBe(replaced);
    expect(result.review).toEqual({
      approved: [3, 5],
      rejected: [7],
      regenerated: [{ styleId: 5, orderIds: [replaced] }],
    });
    expect(result.status).toBe('PARTIAL');
    // Three styles, and style 5 once more: exactly one new order for the regenerate.
    expect(sim.stats().totals).toMatchObject({ modelsCreated: 1, generationOrdersCreated: 4, runs: 1 + 4 });
  }, 240_000);
});

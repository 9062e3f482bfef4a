import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  getPipeline,
  startPipelineRun,
  validatePipelineRequest,
} from '@avatar-pipeline/client/client/pipelines';
import { startGeneration } from '@avatar-pipeline/client/client/model-runs';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { createTestWorker } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, uniqueName } from '../helpers/temporal-env';

/**
 * A model generates a style as often as wanted, so the style's earlier orders sit under it when a
 * later run's create answer is lost: the create's retry must take the order that create made, not
 * an earlier run's. The order is forced: the earlier run ends DONE first, and every create answer
 * of the later run is cut after the provider made the order.
 */
describe('a generation run whose create answer is lost, under a model that generated the style before', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let selfies: { dir: string; files: string[] };

  beforeAll(async () => {
    env = await createDevServerEnv();
    sim = await startSimulator({
      progression: { mode: 'calls', trainingCalls: 2, generationCalls: 1 },
      avatarsPerOrder: 2,
    });
    selfies = await writeSelfies(2);
  });
  afterAll(async () => {
    await sim?.stop();
    await env?.teardown();
  });

  test('takes its own new order, runs it, and leaves the earlier order as it was', async () => {
    const taskQueue = uniqueName('lost-generation-create');
    const placement = placementFrom({ taskQueue });
    const workers = await createTestWorker({
      connection: env.nativeConnection,
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
    });
    const provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 });
    const { first, later } = await workers.runUntil(async () => {
      const pipeline = await startPipelineRun(
        env.client,
        validatePipelineRequest({ images: selfies.files, styles: [3], gender: 1 }),
        placement,
      );
      const first: PipelineResult = await getPipeline(env.client, pipeline.workflowId).result();
      // From here on the provider makes each order it is asked for and the answer never arrives.
      sim.setOptions({ loseResponseRate: 1, faultEndpoints: ['createOrder'] });
      const run = await startGeneration(
        env.client,
        provider,
        { modelId: first.modelId, styles: [3], gender: 1 },
        placement,
      );
      const later: PipelineResult = await getPipeline(env.client, run.workflowId).result();
      return { first, later };
    });

    const earlierOrder = first.generations[0]!.orderId!;
    const laterOrder = later.generations[0]!.orderId!;
    expect(later.generations[0]).toMatchObject({ styleId: 3, status: 'DONE' });
    expect(laterOrder).not.toBe(earlierOrder);
    const orders = sim.stats().orders.filter((o) => o.kind === 'generation' && o.parent === first.modelId);
    // Two orders of the style, each run once: the lost answer was reconciled, neither repeated nor
    // taken for the earlier order (whose avatars the later run would otherwise have handed out again).
    expect(orders.map((o) => ({ id: o.id, runs: o.runs, status: o.status }))).toEqual([
      { id: earlierOrder, runs: 1, status: 'DONE' },
      { id: laterOrder, runs: 1, status: 'DONE' },
    ]);
    expect(sim.stats().faults.lostResponses).toBeGreaterThanOrEqual(1);
    for (const avatar of later.generations[0]!.avatars)
      expect(avatar.imageUrl).toContain(`/images/${laterOrder}/`);
  }, 120_000);
});

import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  getPipeline,
  startPipelineRun,
  validatePipelineRequest,
} from '@avatar-pipeline/client/client/pipelines';
import { startGeneration } from '@avatar-pipeline/client/client/model-runs';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import type { AvatarRef, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import type { AvatarCheck } from '@avatar-pipeline/client/contracts/quality-checks';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import type { CheckActivities } from '../../activities/check-activities';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { createTestWorker } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, uniqueName } from '../helpers/temporal-env';

/**
 * A generation order's create whose answer is lost after the provider made the order: the retry
 * looks for the order it may have made and must take that one, never an earlier order of the
 * same style under the same model. Each case forces its order.
 * - Regeneration: the check of the first order turns on the lost answers, so the regeneration's
 *   create is the one answered by a cut connection; the style's failed order must not be taken
 *   for the new one. The check workers are stand-ins that fail the first order's avatars.
 * - A later run: a model generates a style as often as wanted, so an earlier run's DONE order of
 *   the style sits under it when a later run's create answer is lost.
 */
describe('a generation order whose create answer is lost', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let selfies: { dir: string; files: string[] };

  beforeAll(async () => {
    env = await createDevServerEnv();
    sim = await startSimulator({
      progression: { mode: 'calls', trainingCalls: 2, generationCalls: 1 },
      avatarsPerOrder: 3,
    });
    selfies = await writeSelfies(2);
  });
  afterAll(async () => {
    await sim?.stop();
    await env?.teardown();
  });

  test('a regenerated style takes its new order, not the replaced one, and reports the replaced one', async () => {
    const taskQueue = uniqueName('regenerate');
    const checksQueue = `${taskQueue}-checks`;
    const checkedOrders: number[] = [];
    const orderOf = (avatar: AvatarRef) => Number(/\/images\/(\d+)\//.exec(avatar.imageUrl)?.[1]);
    const standIn: Pick<CheckActivities, 'recordFace' | 'checkAvatars'> = {
      recordFace: async () => ({ recorded: true }),
      checkAvatars: async ({ avatars }) => {
        const orderId = orderOf(avatars[0]!);
        if (!checkedOrders.includes(orderId)) checkedOrders.push(orderId);
        const first = checkedOrders[0] === orderId;
        // The next create is answered by a cut connection, after the provider made the order.
        if (first) sim.setOptions({ loseResponseRate: 1, faultEndpoints: ['createOrder'] });
        else sim.setOptions({ loseResponseRate: 0 });
        const verdict: AvatarCheck = first
          ? { passed: false, reasons: ['shows another person'] }
          : { passed: true, reasons: [] };
        return { checks: avatars.map(() => verdict) };
      },
    };
    const checks = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue: checksQueue,
      activities: standIn,
    });
    const workers = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
    });
    const result = await checks.runUntil(
      workers.runUntil(async () => {
        const placement = placementFrom({
          taskQueue,
          checks: { taskQueue: checksQueue, selfies: false, avatars: true, avatarRegenerations: 1 },
        });
        const run = await startPipelineRun(
          env.client,
          validatePipelineRequest({ images: selfies.files, styles: [3], gender: 1 }),
          placement,
        );
        return getPipeline(env.client, run.workflowId).result();
      }),
    );
    const [style] = result.generations;
    expect(checkedOrders).toHaveLength(2);
    const [failedOrder, newOrder] = checkedOrders;
    expect(style).toMatchObject({
      styleId: 3,
      status: 'DONE',
      orderId: newOrder,
      attempts: 2,
      replacedOrders: [{ orderId: failedOrder, failedAvatars: 3 }],
    });
    expect(style!.avatars.map((a) => [orderOf(a), a.check])).toEqual([
      [newOrder, { passed: true, reasons: [] }],
      [newOrder, { passed: true, reasons: [] }],
      [newOrder, { passed: true, reasons: [] }],
    ]);
    // Two orders at the provider, no third: the lost answer was reconciled, not repeated.
    expect(sim.stats().totals.generationOrdersCreated).toBe(2);
    expect(sim.stats().faults.lostResponses).toBeGreaterThanOrEqual(1);
  }, 120_000);

  test("a later run of a style the model generated before takes its own new order, not the earlier run's", async () => {
    sim.setOptions({ loseResponseRate: 0 });
    const lostBefore = sim.stats().faults.lostResponses;
    const taskQueue = uniqueName('lost-generation-create');
    const placement = placementFrom({ taskQueue });
    const workers = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
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
    expect(sim.stats().faults.lostResponses).toBeGreaterThan(lostBefore);
    for (const avatar of later.generations[0]!.avatars)
      expect(avatar.imageUrl).toContain(`/images/${laterOrder}/`);
  }, 120_000);
});

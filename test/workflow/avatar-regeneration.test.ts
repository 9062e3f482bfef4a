import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  getPipeline,
  startPipelineRun,
  validatePipelineRequest,
} from '@avatar-pipeline/client/client/pipelines';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import type { AvatarRef } from '@avatar-pipeline/client/contracts/pipeline-state';
import type { AvatarCheck } from '@avatar-pipeline/client/contracts/quality-checks';
import type { CheckActivities } from '../../activities/check-activities';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { createTestWorker } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, uniqueName } from '../helpers/temporal-env';

/**
 * A style whose avatars fail their checks is ordered again, exactly once, even when the provider
 * commits the new order and its answer is lost: the create's retry looks for the order it may
 * have made and must not take the style's earlier, failed order for it. The order is forced: the
 * check of the first order turns on the lost answers, so the regeneration's create is the one
 * answered by a cut connection. The check workers are stand-ins that fail the first order's avatars.
 */
describe('regenerating a style whose avatars failed their checks', () => {
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

  test('orders it again once, takes the new order after a lost answer, and reports the replaced one', async () => {
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
      taskQueue: checksQueue,
      activities: standIn,
    });
    const workers = await createTestWorker({
      connection: env.nativeConnection,
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
});

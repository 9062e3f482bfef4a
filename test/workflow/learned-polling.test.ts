import { rm } from 'node:fs/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { generationKind, trainingKind } from '../../src/contracts/order-kinds';
import { OrderDurationStore } from '../../src/order-durations/order-duration-store';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { FsBlobStore } from '../../src/storage';
import { Worker } from '@temporalio/worker';
import { pipelineWorkflowBundle } from '../../src/worker/workflow-bundle';
import { createTestWorker, SkippedClock } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { createTimeSkippingEnv, uniqueName } from '../helpers/temporal-env';

const MINUTE = 60_000;
const TRAINING_MS = 10 * MINUTE;

describe('training status reads timed by learned durations (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator | undefined;
  let selfies: { dir: string; files: string[] };

  beforeEach(async () => {
    // The worker's blob store is the first image root (no STORAGE settings): a fresh one per test.
    selfies = await writeSelfies(3);
    env = await createTimeSkippingEnv();
  });
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
    await env?.teardown();
    await rm(selfies.dir, { recursive: true, force: true });
  });

  /** Runs a one-style pipeline against a provider without progress figures; answers the model's status calls. */
  async function trainOnce(
    styles: number[] = [3],
  ): Promise<{ modelId: number; statusCalls: number; workflowId: string }> {
    const clock = new SkippedClock(env);
    await clock.sync();
    sim = await startSimulator({
      progression: { mode: 'wall', trainingMs: TRAINING_MS, generationMs: MINUTE },
      reportProgress: false,
      clock: clock.now,
    });
    const taskQueue = uniqueName('learned-polling');
    const worker = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
      interceptors: clock.interceptors,
    });
    const result = await worker.runUntil(async () => {
      const pipeline = await startPipeline(
        env.client,
        { images: selfies.files, styles, gender: 1 },
        placementFrom({ taskQueue }),
      );
      return pipeline.result();
    });
    const model = sim.stats().orders.find((o) => o.id === result.modelId)!;
    return { modelId: result.modelId, statusCalls: model.statusCalls, workflowId: result.workflowId };
  }

  test('after three 10-minute trainings of as many selfies, the next is seen within 5% in fewer reads', async () => {
    const durations = new OrderDurationStore(new FsBlobStore(selfies.dir));
    const kind = trainingKind(3);
    for (const [orderId, byMs] of [
      [101, 601_000],
      [102, 603_000],
      [103, 605_000],
    ] as const) {
      await durations.record({ kind, orderId, seenDoneAt: orderId, afterMs: byMs - 24_000, byMs });
      // And three 1-minute generations of the style.
      const generation = { kind: generationKind(3), orderId: orderId + 10, seenDoneAt: orderId };
      await durations.record({ ...generation, afterMs: byMs / 10 - 2_000, byMs: byMs / 10 });
    }

    const { modelId, statusCalls } = await trainOnce();

    // Nothing learned, the backoff reads 15 times and sees the end some 38 s late (bench/RESULTS.md).
    expect(statusCalls).toBeLessThanOrEqual(10);
    const recorded = (await durations.recent(kind, 10)).find((run) => run.orderId === modelId);
    expect(recorded).toBeDefined();
    expect(recorded!.afterMs).toBeLessThan(TRAINING_MS);
    expect(recorded!.byMs).toBeGreaterThanOrEqual(TRAINING_MS);
    expect(recorded!.byMs - TRAINING_MS).toBeLessThanOrEqual(0.05 * TRAINING_MS);
    // The style's order too, by one list read a round (the backoff alone: some 6 s late).
    const generation = (await durations.recent(generationKind(3), 10)).at(-1)!;
    expect(generation.orderId).not.toBe(113);
    expect(generation.byMs).toBeGreaterThanOrEqual(MINUTE);
    expect(generation.byMs - MINUTE).toBeLessThanOrEqual(0.05 * MINUTE);
  });

  test('a run whose parallel styles read and record learned durations replays', async () => {
    const durations = new OrderDurationStore(new FsBlobStore(selfies.dir));
    const styles = [3, 5, 7];
    for (const orderId of [101, 102, 103]) {
      for (const styleId of styles) {
        const byMs = MINUTE + styleId * 1_000;
        const order = { kind: generationKind(styleId), orderId: orderId * 10 + styleId, seenDoneAt: orderId };
        await durations.record({ ...order, afterMs: byMs - 2_000, byMs });
      }
    }
    const { workflowId } = await trainOnce(styles);
    for (const styleId of styles) expect(await durations.recent(generationKind(styleId), 10)).toHaveLength(4);
    // The styles' learned durations are read and recorded by one local activity each way: parallel
    // ones reach the workflow in completion order at first and in call order on replay.
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    // Three calls: the training's figures; the training's finish with the three styles' figures;
    // the three styles' finishes together.
    const durationMarkers = (history.events ?? []).filter((event) =>
      (event.markerRecordedEventAttributes?.details?.data?.payloads ?? []).some((payload) =>
        Buffer.from(payload.data ?? [])
          .toString()
          .includes('OrderDuration'),
      ),
    );
    expect(durationMarkers).toHaveLength(3);
    await Worker.runReplayHistory(
      { workflowBundle: await pipelineWorkflowBundle(), replayName: 'learned-polling' },
      history,
      workflowId,
    );
  });

  test('the first trainings of a kind are polled as before and teach the later ones', async () => {
    const { modelId, statusCalls } = await trainOnce();
    expect(statusCalls).toBeGreaterThanOrEqual(12);
    const learned = await new OrderDurationStore(new FsBlobStore(selfies.dir)).recent(trainingKind(3), 10);
    expect(learned.map((run) => run.orderId)).toEqual([modelId]);
  });
});

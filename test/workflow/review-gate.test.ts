import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { getPipeline, startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { submitReview } from '@avatar-pipeline/client/client/review';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import type { ReviewDecision } from '@avatar-pipeline/client/contracts/review';
import { deliveryWorkflowId } from '@avatar-pipeline/client/contracts/webhook-delivery';
import type { WebhookEnvelope } from '@avatar-pipeline/client/contracts/webhook-events';
import { InputError } from '@avatar-pipeline/client/errors';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { newEndpointId, WebhookEndpointStore } from '@avatar-pipeline/client/webhooks/endpoint-store';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { FsBlobStore } from '../../src/storage';
import { startTestHttpServer, type TestHttpServer } from '../fixtures/http-test-server';
import { createTestWorker, SkippedClock } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { createTimeSkippingEnv, makeScratchDir, uniqueName } from '../helpers/temporal-env';

const KEY = 'webhook-server-key-for-tests-0123456789';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const reviewer = { reviewer: { via: 'test' } };

/** The refusal's issues, or a failure of the test when the submission was taken. */
async function refusal(promise: Promise<unknown>): Promise<{ path: string; message: string }[]> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  return (err as InputError).issues;
}

describe('the review gate on the time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  let clock: SkippedClock;
  let receiver: TestHttpServer;
  let storeDir: string;
  let sim: RunningSimulator | undefined;
  let arrivals: { event: WebhookEnvelope; at: number }[];

  beforeEach(async () => {
    env = await createTimeSkippingEnv();
    clock = new SkippedClock(env);
    storeDir = await makeScratchDir('review-gate');
    arrivals = [];
    receiver = await startTestHttpServer((req, res, body) => void record(req, res, body));
  });
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
    await receiver.close();
    await env.teardown();
  });

  /** Selfies, a simulator on the skipped clock (10 min trainings, 2 min generations) and a worker on a fresh queue. */
  async function singleRun(selfieCount: number, name: string) {
    const selfies = await writeSelfies(selfieCount);
    await clock.sync();
    sim = await startSimulator({
      progression: { mode: 'wall', trainingMs: 10 * MINUTE, generationMs: 2 * MINUTE },
      clock: clock.now,
    });
    const taskQueue = uniqueName(name);
    const workers = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
      interceptors: clock.interceptors,
    });
    return { selfies, taskQueue, workers };
  }

  async function record(_req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    arrivals.push({ event: JSON.parse(body) as WebhookEnvelope, at: await env.currentTimeMs() });
    res.writeHead(204).end();
  }

  test('decisions sent before the gate are kept; regenerate makes exactly one new order; the deadline approves what is left, after reminders and an escalation at their times; only approved styles end in the result', async () => {
    await new WebhookEndpointStore(new FsBlobStore(storeDir)).put({
      id: newEndpointId(),
      tenant: 'default',
      url: `${receiver.origin}/hooks/review`,
      events: ['review.*', 'pipeline.completed'],
      createdAt: new Date().toISOString(),
      generation: 1,
    });
    const selfies = await writeSelfies(2);
    await clock.sync();
    sim = await startSimulator({
      progression: { mode: 'wall', trainingMs: 10 * MINUTE, generationMs: 2 * MINUTE },
      clock: clock.now,
    });
    const taskQueue = uniqueName('review-gate');
    const workers = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [storeDir, selfies.dir],
      interceptors: clock.interceptors,
      callbacks: { privateHosts: ['127.0.0.1'], webhookKey: KEY },
    });
    const provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 });

    await workers.runUntil(async () => {
      const pipeline = await startPipeline(
        env.client,
        {
          images: selfies.files,
          styles: [3, 5, 7],
          gender: 1,
          review: {
            required: true,
            deadlineMs: 6 * HOUR,
            onDeadline: 'approve',
            reminderEveryMs: 2 * HOUR,
            escalateAfterMs: 5 * HOUR,
          },
        },
        placementFrom({ taskQueue }),
      );
      const id = pipeline.workflowId;
      const decide = (...decisions: ReviewDecision[]) =>
        submitReview(env.client, id, { decisions }, reviewer);

      // Refused, each naming its field; nothing of a refused submission is taken.
      expect(
        await refusal(decide({ styleId: 3, decision: 'approve' }, { styleId: 9, decision: 'approve' })),
      ).toEqual([
        { path: 'decisions.1.styleId', message: "style 9 is not one of this run's styles (3, 5, 7)" },
      ]);
      expect((await refusal(decide({ styleId: 3, avatarId: 1, decision: 'approve' })))[0]!.path).toBe(
        'decisions.0.avatarId',
      );
      expect(
        (
          await refusal(
            submitReview(env.client, id, { decisions: [{ styleId: 3, decision: 'maybe' }] }, reviewer),
          )
        )[0]!.path,
      ).toBe('decisions.0.decision');

      // Before the gate: kept for each style's avatars; the same decision again is one decision.
      const early = await decide(
        { styleId: 3, decision: 'approve' },
        { styleId: 5, decision: 'reject' },
        { styleId: 7, decision: 'regenerate' },
      );
      expect(early.results.map((r) => r.effect)).toEqual(['kept', 'kept', 'kept']);
      expect(early.review.state).toBe('waiting');
      expect((await decide({ styleId: 3, decision: 'approve' })).results[0]!.effect).toBe('repeated');
      expect((await refusal(decide({ styleId: 3, decision: 'reject' })))[0]).toEqual({
        path: 'decisions.0.decision',
        message: 'style 3 already has "approve" waiting for its avatars',
      });

      const result = await pipeline.result();
      const progress = await getPipeline(env.client, id).progress();
      const firstOf7 = result.review!.regenerated[0]!.orderIds[0]!;
      expect(result.review).toEqual({
        approved: [3, 7],
        rejected: [5],
        regenerated: [{ styleId: 7, orderIds: [firstOf7] }],
        deadlinePassed: true,
      });
      expect(result.status).toBe('PARTIAL');
      expect(result.generations.map((g) => g.styleId)).toEqual([3, 7]);
      expect(result.generations.every((g) => g.status === 'DONE' && g.avatars.length > 0)).toBe(true);
      const style7 = result.generations.find((g) => g.styleId === 7)!;
      expect(style7.orderId).not.toBe(firstOf7);
      expect(progress.review?.state).toBe('closed');

      // One order per style, and one more for the style regenerated: nothing else at the provider.
      const orders = (await provider.listOrders()).filter((o) => o.parent !== undefined && o.parent !== 0);
      const perStyle = (styleId: number) => orders.filter((o) => o.styles?.includes(styleId)).length;
      expect([perStyle(3), perStyle(5), perStyle(7)]).toEqual([1, 1, 2]);

      await env.client.workflow.getHandle(deliveryWorkflowId(id)).result();
      const types = arrivals.map((a) => a.event.type);
      expect(types).toEqual([
        'review.requested',
        'review.decided',
        'review.reminder',
        'review.reminder',
        'review.reminder',
        'review.decided',
        'pipeline.completed',
      ]);
      const opened = Date.parse(arrivals[0]!.event.timestamp);
      const after = (i: number) => Date.parse(arrivals[i]!.event.timestamp) - opened;
      const data = (i: number) => arrivals[i]!.event.data as Record<string, unknown>;
      expect(data(1).reviewer).toBe('test');
      // Reminders every 2 hours, the escalation at 5, the deadline at 6 (each within a minute).
      for (const [index, hours, escalation] of [
        [2, 2, false],
        [3, 4, false],
        [4, 5, true],
      ] as const) {
        expect(Math.abs(after(index) - hours * HOUR)).toBeLessThan(MINUTE);
        expect(data(index).escalation).toBe(escalation);
      }
      expect(Math.abs(after(5) - 6 * HOUR)).toBeLessThan(MINUTE);
      expect(data(5).reviewer).toBe('deadline');
    });
  }, 300_000);

  test('a review left for its whole deadline rejects everything by default: the run fails as NothingApproved', async () => {
    const { selfies, taskQueue, workers } = await singleRun(2, 'review-deadline');
    await workers.runUntil(async () => {
      const pipeline = await startPipeline(
        env.client,
        { images: selfies.files, styles: [3], gender: 1, review: { required: true } },
        placementFrom({ taskQueue }),
      );
      const failure = await pipeline.result().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(failure?.message).toMatch(/No style was approved in review \(rejected: 3\)/);
      const progress = await pipeline.progress();
      expect(progress.review).toMatchObject({ state: 'closed', deadlinePassed: true, onDeadline: 'reject' });
      expect(Date.parse(progress.review!.deadlineAt!) - Date.parse(progress.review!.openedAt!)).toBe(
        72 * HOUR,
      );
    });
  }, 300_000);

  test('a run started without review refuses decisions, saying so', async () => {
    const { selfies, taskQueue, workers } = await singleRun(1, 'no-review');
    await workers.runUntil(async () => {
      const pipeline = await startPipeline(
        env.client,
        { images: selfies.files, styles: [3], gender: 1 },
        placementFrom({ taskQueue }),
      );
      expect(
        await refusal(
          submitReview(
            env.client,
            pipeline.workflowId,
            { decisions: [{ styleId: 3, decision: 'approve' }] },
            reviewer,
          ),
        ),
      ).toEqual([
        { path: 'decisions', message: 'this run was started without review: nothing waits for a decision' },
      ]);
      const result = await pipeline.result();
      expect(result.review).toBeUndefined();
      expect(result.status).toBe('DONE');
    });
  }, 300_000);
});

import { WorkflowFailedError } from '@temporalio/client';
import { PipelineFailedError } from '@avatar-pipeline/client/client/pipeline-failed';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { getPipeline, startPipeline, type PipelineHandle } from '@avatar-pipeline/client/client/pipelines';
import type { PipelineRequest } from '@avatar-pipeline/client/contracts/pipeline-input';
import type { PipelineProgress } from '@avatar-pipeline/client/contracts/pipeline-state';
import { progressChangesQuery } from '@avatar-pipeline/client/contracts/progress-feed';
import { startSimulator, type RunningSimulator, type StartSimulatorOptions } from '../../src/simulator';
import { createTestWorker, SkippedClock } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { createTimeSkippingEnv, uniqueName } from '../helpers/temporal-env';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';

const MINUTE = 60_000;

describe('avatar pipeline on the time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  let clock: SkippedClock;
  let selfies: { dir: string; files: string[] };
  let sim: RunningSimulator | undefined;

  beforeAll(async () => {
    selfies = await writeSelfies(3);
  });
  // A fresh server per test: the test server stops skipping time for good once an earlier test
  // leaves anything outstanding, which would turn every later test's minutes into real minutes.
  beforeEach(async () => {
    env = await createTimeSkippingEnv();
    clock = new SkippedClock(env);
  });
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
    await env?.teardown();
  });

  async function simulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
    await clock.sync();
    sim = await startSimulator({
      progression: { mode: 'wall', trainingMs: 10 * MINUTE, generationMs: 2 * MINUTE },
      clock: clock.now,
      ...options,
    });
    return sim;
  }

  /** Runs `body` with a worker polling a fresh task queue; the pipeline starts from `request`. */
  async function withPipeline<T>(
    provider: RunningSimulator,
    request: Partial<PipelineRequest>,
    body: (pipeline: PipelineHandle, worker: PipelineWorkers) => Promise<T>,
  ): Promise<T> {
    const taskQueue = uniqueName('pipeline');
    const worker = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: provider.url,
      imageRoots: [selfies.dir],
      interceptors: clock.interceptors,
    });
    return worker.runUntil(async () => {
      const pipeline = await startPipeline(
        env.client,
        { images: selfies.files, styles: [3, 5, 7], gender: 1, ...request },
        placementFrom({ taskQueue }),
      );
      return body(pipeline, worker);
    });
  }

  test('happy path: one model, one order per style, every avatar collected', async () => {
    const provider = await simulator();
    const [result, progress] = await withPipeline(
      provider,
      {},
      async (p) => [await p.result(), await p.progress()] as const,
    );

    // The progress of a finished pipeline is its end state, whatever order the children's signals took.
    expect(progress.stage).toBe('done');
    expect(progress.styles.map((s) => [s.styleId, s.stage, s.avatarCount])).toEqual([
      [3, 'done', 8],
      [5, 'done', 8],
      [7, 'done', 8],
    ]);
    expect(result.status).toBe('DONE');
    expect(result.generations.map((g) => [g.styleId, g.status, g.avatars.length])).toEqual([
      [3, 'DONE', 8],
      [5, 'DONE', 8],
      [7, 'DONE', 8],
    ]);
    const stats = provider.stats();
    expect(stats.totals).toMatchObject({ modelsCreated: 1, generationOrdersCreated: 3, uploads: 3, runs: 4 });
    const model = stats.orders.find((o) => o.kind === 'model')!;
    expect(model.id).toBe(result.modelId);
    for (const g of result.generations) {
      const order = stats.orders.find((o) => o.id === g.orderId)!;
      expect(order).toMatchObject({ parent: result.modelId, styles: [g.styleId], runs: 1, status: 'DONE' });
      expect(new Set(g.avatars.map((a) => a.avatarId)).size).toBe(8);
    }
    // The three orders are polled together: one status call learns the rate (the figures time
    // every order of the model), one list call at the finish finds them all DONE.
    const generationStatusCalls = stats.orders
      .filter((o) => o.kind === 'generation')
      .reduce((sum, o) => sum + o.statusCalls, 0);
    expect(generationStatusCalls).toBe(1);
    expect(stats.requests.byEndpoint.listModelOrders).toBe(1);
    // A 10-minute training: one call to learn its rate, then waits of at most 2 minutes.
    expect(model.statusCalls).toBeLessThanOrEqual(7);
  });

  test('without progress figures, the orders of a model are polled by list alone, backing off', async () => {
    const provider = await simulator({ reportProgress: false });
    const result = await withPipeline(provider, {}, (p) => p.result());
    expect(result.status).toBe('DONE');
    const stats = provider.stats();
    const generationStatusCalls = stats.orders
      .filter((o) => o.kind === 'generation')
      .reduce((sum, o) => sum + o.statusCalls, 0);
    // One status call finds that the provider gives no figure; from then on one list call a round
    // (5 s, then x1.5: about 6 rounds to the end of a 2-minute generation) serves all 3 styles.
    expect(generationStatusCalls).toBe(1);
    const lists = stats.requests.byEndpoint.listModelOrders ?? 0;
    expect(lists).toBeGreaterThanOrEqual(3);
    expect(lists).toBeLessThanOrEqual(7);
  });

  test("each style's progress reaches the pipeline's feed poll by poll, without a signal", async () => {
    const provider = await simulator({
      progression: { mode: 'wall', trainingMs: 10 * MINUTE, generationMs: 10 * MINUTE },
    });
    const { result, changes, signals } = await withPipeline(provider, {}, async (p) => {
      const result = await p.result();
      const handle = env.client.workflow.getHandle(p.workflowId);
      const history = await handle.fetchHistory();
      return {
        result,
        // The feed keeps every snapshot the run published (fewer than its capacity here).
        changes: (await handle.query(progressChangesQuery, { afterVersion: 0 })).changes.map(
          (c) => c.progress as PipelineProgress,
        ),
        signals: (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length,
      };
    });

    expect(result.status).toBe('DONE');
    // Signals would cost the pipeline's history events and a workflow task each.
    expect(signals).toBe(0);
    for (const g of result.generations) {
      const seen = changes.map((c) => c.styles.find((s) => s.styleId === g.styleId)!);
      const polled = seen.filter((s) => s.stage === 'polling' && s.orderId === g.orderId);
      // Provider progress as the polls saw it, rising, then done with the avatars.
      expect(new Set(polled.map((s) => s.progress)).size).toBeGreaterThan(1);
      expect(seen[seen.length - 1]).toMatchObject({ stage: 'done', orderId: g.orderId, avatarCount: 8 });
      // The done style names its avatars (ids and archive keys, never the provider's URLs), so a
      // watcher shows them before the run ends.
      const named = seen[seen.length - 1]!.avatars;
      expect(named).toEqual(
        g.avatars.map((a) => ({
          avatarId: a.avatarId,
          ...(a.archiveKey !== undefined ? { archiveKey: a.archiveKey } : {}),
        })),
      );
      expect(JSON.stringify(named)).not.toContain('http');
    }
  });

  test('30 simulated minutes of training pass in seconds, with few status calls', async () => {
    const provider = await simulator({
      progression: { mode: 'wall', trainingMs: 30 * MINUTE, generationMs: MINUTE },
    });
    const startedAt = await env.currentTimeMs();
    const wallStart = Date.now();
    const result = await withPipeline(provider, { styles: [3] }, (p) => p.result());
    const skipped = (await env.currentTimeMs()) - startedAt;

    expect(result.status).toBe('DONE');
    expect(skipped).toBeGreaterThanOrEqual(31 * MINUTE);
    expect(Date.now() - wallStart).toBeLessThan(60_000);
    const model = provider.stats().orders.find((o) => o.id === result.modelId)!;
    // A fixed 5 s interval would make 360 calls; adaptive polling aims at the finish that
    // progress implies, in waits of at most 2 minutes (the bound on how late an ERROR is noticed).
    expect(model.statusCalls).toBeLessThanOrEqual(20);
  });

  test("the product's workers make a refused API key final: one request, no retries", async () => {
    const provider = await simulator({ apiKey: 'the-right-key' });
    const taskQueue = uniqueName('pipeline');
    const worker = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: provider.url,
      imageRoots: [selfies.dir],
      apiKey: 'a-wrong-key',
      interceptors: clock.interceptors,
    });
    const failure = await worker.runUntil(async () => {
      const pipeline = await startPipeline(
        env.client,
        { images: selfies.files, styles: [3], gender: 1 },
        placementFrom({ taskQueue }),
      );
      return pipeline.result().catch((err: unknown) => err);
    });
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const causes: unknown[] = [];
    for (let cause: unknown = failure; cause instanceof Error; cause = cause.cause) causes.push(cause);
    expect(causes).toContainEqual(expect.objectContaining({ type: 'Provider:auth', nonRetryable: true }));
    const requests = Object.values(provider.stats().requests.byEndpoint).reduce((a, b) => a + b, 0);
    expect(requests).toBe(1);
  });

  test('training that ends in ERROR fails the pipeline with the provider message', async () => {
    const provider = await simulator({ trainingOutcome: 'ERROR' });
    await withPipeline(provider, {}, async (p) => {
      const failure = await p.result().catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      const message = String((failure as WorkflowFailedError).cause?.message);
      expect(message).toMatch(/training of model \d+ ended in ERROR/i);
      // The handle's error says why itself, without digging through Temporal's causes.
      expect(failure).toBeInstanceOf(PipelineFailedError);
      expect(failure).toMatchObject({ workflowId: p.workflowId, end: 'failed', reason: message });
      expect((failure as Error).message).toBe(`Run ${p.workflowId} failed: ${message}`);
      const progress = await p.progress();
      expect(progress.stage).toBe('failed');
      expect(progress.styles.every((s) => s.stage === 'pending')).toBe(true);
    });
    expect(provider.stats().totals.generationOrdersCreated).toBe(0);
  });

  test('a style that ends in ERROR is reported while the others are returned', async () => {
    const provider = await simulator({ failStyles: [5] });
    const result = await withPipeline(provider, {}, (p) => p.result());

    expect(result.status).toBe('PARTIAL');
    const byStyle = Object.fromEntries(result.generations.map((g) => [g.styleId, g]));
    expect(byStyle[3]).toMatchObject({ status: 'DONE' });
    expect(byStyle[7]).toMatchObject({ status: 'DONE' });
    expect(byStyle[5]).toMatchObject({ status: 'ERROR', avatars: [] });
    expect(byStyle[5]!.orderId).toEqual(expect.any(Number));
    expect(byStyle[5]!.error).toMatch(/ERROR/);
  });

  test('every style failing fails the pipeline', async () => {
    const provider = await simulator({ failStyles: [3, 5, 7] });
    await withPipeline(provider, {}, async (p) => {
      const failure = (await p.result().catch((err: unknown) => err)) as WorkflowFailedError;
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect(failure.cause?.message).toMatch(/No style succeeded/);
    });
  });

  test('an order that outlives its deadline fails with the order and the duration named', async () => {
    const provider = await simulator({
      progression: { mode: 'wall', trainingMs: 3 * 60 * MINUTE, generationMs: MINUTE },
    });
    await withPipeline(provider, { trainingDeadlineMs: 20 * MINUTE }, async (p) => {
      const failure = (await p.result().catch((err: unknown) => err)) as WorkflowFailedError;
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      const modelId = (await p.progress()).modelId;
      expect(failure.cause?.message).toMatch(new RegExp(`order ${modelId}\\) did not finish within 20m`));
    });
  });

  test('cancelling mid-poll stops polling, cancels nothing twice and reports what was created', async () => {
    const provider = await simulator({
      progression: { mode: 'wall', trainingMs: 60 * MINUTE, generationMs: MINUTE },
    });
    await withPipeline(provider, {}, async (p) => {
      await waitFor(async () => (await p.progress()).training.polls >= 1);
      await p.cancel();
      const failure = (await p.result().catch((err: unknown) => err)) as WorkflowFailedError;
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect(failure.cause?.name).toBe('CancelledFailure');
      expect(failure).toMatchObject({ name: 'PipelineFailedError', end: 'cancelled' });
      const progress = await getPipeline(env.client, p.workflowId).progress();
      expect(progress.stage).toBe('cancelled');
      expect(progress.modelId).toEqual(expect.any(Number));
      expect(progress.uploads.done).toBe(3);
      const callsAtCancel = provider.stats().totals.statusCalls;
      await env.sleep(30 * MINUTE);
      expect(provider.stats().totals.statusCalls).toBe(callsAtCancel);
    });
  });

  test("a worker's later runs start their avatar walks where its earlier runs found the pages start", async () => {
    const provider = await simulator(); // pages from 1, 4 avatars a page, 8 avatars a style
    const pageReads = () => provider.stats().requests.byEndpoint['listAvatarPage'] ?? 0;
    const reads = await withPipeline(provider, { styles: [3] }, async (first, worker) => {
      await first.result();
      const firstRun = pageReads();
      const second = await startPipeline(
        env.client,
        { images: selfies.files, styles: [5], gender: 1 },
        placementFrom({ taskQueue: worker.taskQueues.pipeline! }),
      );
      const result = await second.result();
      expect(result.generations.map((g) => [g.styleId, g.status, g.avatars.length])).toEqual([
        [5, 'DONE', 8],
      ]);
      return { firstRun, secondRun: pageReads() - firstRun };
    });
    // The first run pays for the empty page 0 once; the second reads pages 1 and 2 and the empty 3.
    expect(reads).toEqual({ firstRun: 4, secondRun: 3 });
  });

  test('a provider answering in the variant dialect behind a path prefix, pages from 0', async () => {
    const provider = await simulator({
      dialect: 'variant',
      basePath: '/rest/api',
      firstPage: 0,
      pageSize: 3,
    });
    const result = await withPipeline(provider, { mainImageIndex: 2 }, (p) => p.result());

    expect(result.status).toBe('DONE');
    expect(result.generations.every((g) => g.avatars.length === 8)).toBe(true);
    expect(provider.url).toMatch(/\/rest\/api$/);
    const model = provider.stats().orders.find((o) => o.id === result.modelId)!;
    expect(model).toMatchObject({ uploads: 3, runs: 1, selects: 1 });
  });
});

async function waitFor(predicate: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate().catch(() => false))) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

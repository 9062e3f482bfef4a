import { setTimeout as delay } from 'node:timers/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { startPipeline, type PipelineHandle } from '@avatar-pipeline/client/client/pipelines';
import { DEFAULT_API_LIMITS } from '../../src/api/server';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import type { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { uniqueBasePath } from '../helpers/e2e-pipeline';
import { createTestWorker, testConfig } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { openEventStream } from '../helpers/sse-client';
import { createDevServerEnv, uniqueName } from '../helpers/temporal-env';
import { startTestApi, withApi } from '../helpers/test-api';

/** Four tokens, so the flood stays under the per-token cap (20) with 40 streams at once. */
const TOKENS = [0, 1, 2, 3].map((i) => `flood-token-${i}-0123456789abcdef`);
const OPENS = 2_000;
/** Counted instead of a status when an open that waits for its first event gets none within 10 s. */
const NO_FIRST_EVENT = 0;
/** Streams open at once: under the per-run cap (50), with room for closes the server has yet to see. */
const AT_ONCE = 40;
/**
 * Training finishes on its 90th status call, and calls come at most one a second, so a flood cut
 * off after FLOOD_LIMIT_MS always ends while the run is training, however busy the machine.
 */
const TRAINING_CALLS = 90;
const FLOOD_LIMIT_MS = 80_000;
const ONE_SECOND = {
  initialIntervalMs: 1_000,
  minIntervalMs: 1_000,
  maxIntervalMs: 1_000,
  maxProgressIntervalMs: 1_000,
};

/**
 * Watching a run must not write to its history. 2,000 opens of a training
 * run's event stream (half resuming with Last-Event-ID, half read up to their first event, half
 * closed at once), and direct calls of a progressChanges update (the run has no such handler),
 * write nothing to its history: no signal or update, and beside workflow tasks, activities and timers
 * (whose number follows polling timing on a busy machine) the same events as the same run nobody
 * watched.
 */
describe('an event-stream flood during training', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let workers: PipelineWorkers;
  let workersRun: Promise<void>;
  let app: FastifyInstance;
  let base: string;
  let files: string[];
  const taskQueue = uniqueName('flood');

  beforeAll(async () => {
    env = await createDevServerEnv();
    const selfies = await writeSelfies(2, 'flood-selfies-');
    files = selfies.files;
    // Training ends on a fixed number of status calls, so both runs poll (and record) the same.
    sim = await startSimulator({
      basePath: uniqueBasePath('flood'),
      progression: { mode: 'calls', trainingCalls: TRAINING_CALLS, generationCalls: 2 },
    });
    workers = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
    });
    workersRun = workers.run();
    const config = testConfig({
      namespace: env.namespace,
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
    });
    ({ app, base } = await startTestApi({
      // Neither the request rate limit nor the per-client connection cap is what this test is about:
      // 2,000 opens fit in the one, and closed streams the loaded server has yet to count stay
      // within the other.
      config: withApi(config, {
        tokens: TOKENS,
        limits: { ...DEFAULT_API_LIMITS, rateLimitPerMinute: 100_000, maxConnectionsPerClient: 1_000 },
      }),
      client: env.client,
    }));
  });

  afterAll(async () => {
    await app?.close();
    workers?.shutdown();
    await workersRun;
    await sim?.stop();
    await env?.teardown();
  });

  const start = (): Promise<PipelineHandle> =>
    startPipeline(
      env.client,
      { images: files, styles: [3], gender: 2, polling: ONE_SECOND },
      placementFrom({ taskQueue }),
    );

  /**
   * The run's history events by kind, leaving out workflow tasks, activities and timers: how many of
   * those a run writes depends on how its polls meet a busy machine's timing, not on who watches it.
   * What is left (the run's start and end, markers, children, signals, updates) is what a watcher
   * could add.
   */
  async function eventKindsOf(workflowId: string): Promise<Record<string, number>> {
    const { events } = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const kinds: Record<string, number> = {};
    for (const event of events ?? []) {
      const kind = Object.keys(event).find(
        (key) => key.endsWith('EventAttributes') && event[key as keyof typeof event],
      );
      if (kind === undefined || /^(workflowTask|activityTask|timer)/.test(kind)) continue;
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    }
    return kinds;
  }

  async function untilTraining(pipeline: PipelineHandle): Promise<void> {
    for (let tries = 0; (await pipeline.progress().catch(() => undefined))?.stage !== 'training'; tries++) {
      if (tries > 300) throw new Error(`${pipeline.workflowId} did not reach training`);
      await delay(100);
    }
  }

  /** One open: its status, or NO_FIRST_EVENT when the progress event it waits for does not come. */
  async function open(workflowId: string, n: number): Promise<number> {
    const headers: Record<string, string> = { authorization: `Bearer ${TOKENS[n % TOKENS.length]}` };
    if (n % 2 === 1) headers['last-event-id'] = '1';
    const stream = await openEventStream(`${base}/v1/pipelines/${workflowId}/events`, headers);
    try {
      if (stream.status === 200 && n % 4 < 2) {
        const first = await stream.next(10_000).catch(() => undefined);
        if (first?.event !== 'progress') return NO_FIRST_EVENT;
      }
      return stream.status;
    } finally {
      stream.close();
    }
  }

  test('2,000 opens, with and without Last-Event-ID, write nothing to the run\u2019s history', async () => {
    const [watched, unwatched] = await Promise.all([start(), start()]);
    await Promise.all([untilTraining(watched), untilTraining(unwatched)]);

    const statuses = new Map<number, number>();
    let next = 0;
    // Opens stop after this, so a stack that cannot keep up still ends and shows the history.
    const floodUntil = Date.now() + FLOOD_LIMIT_MS;
    const opener = async () => {
      for (let n = next++; n < OPENS && Date.now() < floodUntil; n = next++) {
        const status = await open(watched.workflowId, n);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    // Direct updates by that name: the run has no handler, so each is refused and leaves no trace.
    const direct = Array.from({ length: 5 }, () =>
      env.client.workflow
        .getHandle(watched.workflowId)
        .executeUpdate('progressChanges', { args: [{ afterVersion: 0 }] })
        .then(
          () => 'accepted',
          () => 'refused',
        ),
    );
    await Promise.all(Array.from({ length: AT_ONCE }, opener));
    const stageAfterFlood = (await watched.progress()).stage;
    const directAnswers = await Promise.all(direct);
    const [watchedResult, unwatchedResult] = await Promise.all([watched.result(), unwatched.result()]);
    const [watchedKinds, unwatchedKinds] = await Promise.all([
      eventKindsOf(watched.workflowId),
      eventKindsOf(unwatched.workflowId),
    ]);
    process.stderr.write(
      `event-stream flood: answers by status ${JSON.stringify([...statuses])}; events of the watched run beside polling ${JSON.stringify(watchedKinds)}, unwatched ${JSON.stringify(unwatchedKinds)}\n`,
    );

    // Every open was answered, while the run was training, and (nearly) none was refused.
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(OPENS);
    expect(stageAfterFlood).toBe('training');
    expect(statuses.get(200) ?? 0).toBeGreaterThanOrEqual(OPENS * 0.95);
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // A client writing to the run's history itself, the way watchers once did, is refused.
    expect(directAnswers).toEqual(Array.from({ length: 5 }, () => 'refused'));
    // Both runs complete, and the flood wrote nothing to the watched run's history: no signal or
    // update, and beside its polling the same events as the run nobody watched.
    expect(watchedResult.status).toBe('DONE');
    expect(unwatchedResult.status).toBe('DONE');
    const writtenByCallers = Object.keys(watchedKinds).filter((kind) =>
      /^workflowExecution(Signaled|Update)/.test(kind),
    );
    expect(writtenByCallers).toEqual([]);
    expect(watchedKinds).toEqual(unwatchedKinds);
  }, 240_000);
});

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import type { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { ARCHIVES_AT_ONCE } from '../../workflows/archive-avatars';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { createTestWorker } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, uniqueName } from '../helpers/temporal-env';

/** Three times the bound, so copies go out in several waves; an unbounded run schedules all at once. */
const AVATARS = 3 * ARCHIVES_AT_ONCE;

/**
 * Trust III, L1: a provider page can hold thousands of avatars. Scheduling a copy per avatar all
 * at once exceeds the server's 2,000 pending activities per run (PENDING_ACTIVITIES_LIMIT_EXCEEDED)
 * and the run's workflow task fails again and again; the run's copies are bounded instead. The
 * bound is what this shows, at a size that keeps the test short: 3,000 avatars took 150 s here.
 */
describe(`archiving a page of ${AVATARS} avatars`, () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let workers: PipelineWorkers;
  let workersRun: Promise<void>;
  let files: string[];
  const taskQueue = uniqueName('many-avatars');

  beforeAll(async () => {
    env = await createDevServerEnv();
    const selfies = await writeSelfies(1, 'many-avatars-');
    files = selfies.files;
    sim = await startSimulator({
      basePath: uniqueBasePath('many-avatars'),
      progression: { mode: 'calls', trainingCalls: 1, generationCalls: 1 },
      avatarsPerOrder: AVATARS,
      pageSize: AVATARS,
      avatarSize: 16,
    });
    workers = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
      archiveAvatars: true,
    });
    workersRun = workers.run();
  });

  afterAll(async () => {
    workers?.shutdown();
    await workersRun;
    await sim?.stop();
    await env?.teardown();
  });

  test('the run finishes with every avatar archived, its pending copies never above the bound', async () => {
    const pipeline = await startPipeline(
      env.client,
      { images: files, styles: [3], gender: 1, polling: FAST_POLLING },
      placementFrom({ taskQueue, archiveAvatars: true }),
    );
    const result = await pipeline.result();
    expect(result.status).toBe('DONE');
    const [generation] = result.generations;
    expect(generation?.avatars).toHaveLength(AVATARS);
    expect(generation?.avatars.every((a) => a.archiveKey !== undefined)).toBe(true);

    // No workflow task failed on the way, and copies were scheduled no more than the bound at once.
    const events = (await pipeline.raw.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
    let pending = 0;
    let most = 0;
    const copies = new Set<string>();
    for (const event of events) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name === 'archiveAvatar') {
        copies.add(String(event.eventId));
        most = Math.max(most, ++pending);
      }
      const ended =
        event.activityTaskCompletedEventAttributes ??
        event.activityTaskFailedEventAttributes ??
        event.activityTaskTimedOutEventAttributes;
      if (ended && copies.has(String(ended.scheduledEventId))) pending--;
    }
    expect(copies.size).toBe(AVATARS);
    expect(most).toBeLessThanOrEqual(ARCHIVES_AT_ONCE);
  }, 600_000);
});

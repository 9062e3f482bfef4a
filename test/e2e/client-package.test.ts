import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { NativeConnection } from '@temporalio/worker';
import {
  createPipelineClient,
  InputError,
  type PipelineClient,
  type PipelineSummary,
  type SelfieStore,
} from '@avatar-pipeline/client';
import { openSelfieStore } from '@avatar-pipeline/client/selfie-store';
import { getCampaign, openBlobStoreFromEnv, startCampaign } from '@avatar-pipeline/client/campaigns';
import { forgetSubject } from '@avatar-pipeline/client/erasure';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { storageSettingsFromEnv } from '@avatar-pipeline/client/storage/storage-settings';
import { uploadsPrefix } from '@avatar-pipeline/client/storage/blob-keys';
import { PipelineWorkers, startSimulator, type RunningSimulator } from '../../src/index';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { testConfig } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { devServerUnderTest, uniqueName } from '../helpers/temporal-env';
import { temporaryDirectory } from '../helpers/temp-dir';

/** Visibility (what list reads) trails the workflow by a moment. */
async function eventually<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await delay(250);
  }
}

describe('the client package, used as a library user would (@avatar-pipeline/client)', () => {
  const { address, namespace } = devServerUnderTest();
  let connection: NativeConnection;
  let selfies: { dir: string; files: string[] };
  const running: { sim: RunningSimulator; worker: PipelineWorkers; done: Promise<void> }[] = [];

  /** A simulator and a worker for it on a fresh task queue; returns a client for that queue. */
  async function stack(
    trainingMs: number,
    extra: { blobDir?: string; selfieStore?: SelfieStore } = {},
  ): Promise<{
    pipelines: PipelineClient;
    sim: RunningSimulator;
    worker: PipelineWorkers;
    taskQueue: string;
  }> {
    const sim = await startSimulator({
      basePath: uniqueBasePath('client-package'),
      progression: { mode: 'wall', trainingMs, generationMs: 300 },
      avatarsPerOrder: 3,
      pageSize: 2,
    });
    const taskQueue = uniqueName('client-package');
    // Both workers, as `avatar-pipeline worker` runs them: the client sends provider calls to the provider queue.
    const config = testConfig({ namespace, taskQueue, providerUrl: sim.url, imageRoots: [selfies.dir] });
    if (extra.blobDir) config.storage = storageSettingsFromEnv({}, extra.blobDir);
    const worker = await PipelineWorkers.create({ connection, config });
    running.push({ sim, worker, done: worker.run() });
    // Settings given here win; nothing comes from this process's environment but the operator's
    // polling floor, lowered as for the in-process workers' quick simulator. The app sets the
    // worker's and the API's variables its own way: not the client's business, so not read.
    const pipelines = await createPipelineClient(
      { address, namespace, taskQueue, ...(extra.selfieStore ? { selfieStore: extra.selfieStore } : {}) },
      // SELFIE_CHECKS off: drawn selfies, and a test worker without a check worker.
      {
        PROVIDER_POLL_MIN_INTERVAL_MS: '100',
        SELFIE_CHECKS: 'false',
        AVATAR_CHECKS: 'false',
        LOG_LEVEL: 'bogus',
        LOG_FORMAT: 'pretty',
        API_PORT: 'abc',
      },
    );
    return { pipelines, sim, worker, taskQueue };
  }

  beforeAll(async () => {
    connection = await NativeConnection.connect({ address });
    selfies = await writeSelfies(2);
  });
  afterAll(async () => {
    for (const { worker, sim, done } of running) {
      worker.shutdown();
      await done;
      await sim.stop();
    }
    await connection.close();
  });

  it('starts a pipeline, reads its progress and result, and a repeated request id returns the same run', async () => {
    const { pipelines, sim, worker } = await stack(500);
    try {
      const subjectId = uniqueName('subject');
      const request = {
        images: selfies.files,
        styles: [3, 7],
        gender: 1 as const,
        subjectId,
        polling: FAST_POLLING,
      };
      const requestId = uniqueName('request');
      const run = await pipelines.start(request, { requestId });
      expect(run.workflowId).toBe(`default.avatar-pipeline-${requestId}`);
      const progress = await run.progress();
      expect(progress.workflowId).toBe(run.workflowId);
      expect(progress.styles.map((s) => s.styleId)).toEqual([3, 7]);

      const result = await run.result();
      expect(result.status).toBe('DONE');
      expect(result.generations.map((g) => [g.styleId, g.avatars.length])).toEqual([
        [3, 3],
        [7, 3],
      ]);
      expect(await run.status()).toBe('COMPLETED');
      // Provider calls went to the workers' rate-limited provider queue, as the API's do.
      expect(pipelines.placement.providerTaskQueue).toBe(worker.taskQueues.provider);
      const history = await pipelines.temporal.workflow.getHandle(run.workflowId).fetchHistory();
      const scheduled = (history.events ?? []).flatMap((e) =>
        e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : [],
      );
      expect(scheduled.find((a) => a.activityType?.name === 'createModel')?.taskQueue?.name).toBe(
        pipelines.placement.providerTaskQueue,
      );

      const again = await pipelines.start(request, { requestId });
      expect(again.workflowId).toBe(run.workflowId);
      expect(await again.result()).toEqual(result);
      expect(sim.stats().totals.modelsCreated).toBe(1);

      expect((await pipelines.get(run.workflowId).result()).modelId).toBe(result.modelId);

      const listed = await eventually(
        () => pipelines.list({ subjectId }),
        (runs) => runs.length === 1 && runs[0]?.status === 'COMPLETED',
      );
      expect(listed).toEqual([
        expect.objectContaining<Partial<PipelineSummary>>({
          workflowId: run.workflowId,
          status: 'COMPLETED',
          subjectId,
          modelId: result.modelId,
        }),
      ]);
      expect(await pipelines.list({ subjectId, status: 'running' })).toEqual([]);
      expect(await pipelines.list({ subjectId, status: 'completed' })).toHaveLength(1);
    } finally {
      await pipelines.close();
    }
  });

  it('lists running pipelines, cancels one, and then lists it as cancelled', async () => {
    const { pipelines } = await stack(60_000);
    try {
      const subjectId = uniqueName('subject');
      const request = {
        images: selfies.files,
        styles: [5],
        gender: 2 as const,
        subjectId,
        polling: FAST_POLLING,
      };
      const first = await pipelines.start(request);
      const second = await pipelines.start(request);
      expect(second.workflowId).not.toBe(first.workflowId);

      const runningNow = await eventually(
        () => pipelines.list({ subjectId, status: 'running' }),
        (runs) => runs.length === 2,
      );
      expect(runningNow.map((r) => r.workflowId).sort()).toEqual(
        [first.workflowId, second.workflowId].sort(),
      );
      expect(await pipelines.list({ subjectId, limit: 1 })).toHaveLength(1);

      await eventually(
        () => first.progress(),
        (p) => p.stage === 'training',
      );
      await first.cancel();
      await expect(first.result()).rejects.toThrow();
      expect(await first.status()).toBe('CANCELLED');
      expect((await first.progress()).stage).toBe('cancelled');
      const cancelled = await eventually(
        () => pipelines.list({ subjectId, status: 'cancelled' }),
        (runs) => runs.length === 1,
      );
      expect(cancelled.map((r) => r.workflowId)).toEqual([first.workflowId]);
      await second.cancel();
      await expect(second.result()).rejects.toThrow();
    } finally {
      await pipelines.close();
    }
  });

  it("takes selfies as bytes: stored where the workers read them, under the run's folder, deleted once trained", async () => {
    // The workers' blob store is a directory of its own, outside IMAGE_ROOTS: the app shares no
    // folder with them but the store, as with an s3:// STORAGE_URL.
    const blobDir = temporaryDirectory('client-blobs-');
    const selfieStore = openSelfieStore({ BLOB_DIR: blobDir });
    const { pipelines, sim } = await stack(500, { blobDir, selfieStore });
    // What is stored under a folder; the filesystem store removes a folder once it is empty.
    const files = async (dir: string) =>
      (
        await readdir(dir, { recursive: true, withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return [];
          throw err;
        })
      )
        .filter((e) => e.isFile())
        .map((e) => e.name);
    try {
      const bytes = await Promise.all(selfies.files.map((file) => readFile(file)));
      const request = { images: bytes, styles: [3], gender: 1 as const, polling: FAST_POLLING };
      const requestId = uniqueName('bytes');
      const run = await pipelines.start(request, { requestId });

      // The run was started with references to the stored selfies, never their bytes.
      const history = await pipelines.temporal.workflow.getHandle(run.workflowId).fetchHistory();
      const payload = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
      const input = JSON.parse(Buffer.from(payload.data!).toString('utf8')) as {
        images: string[];
        deleteUploadsAfterTraining?: boolean;
      };
      const runFolder = `blob:${uploadsPrefix(run.workflowId)}`;
      expect(input.images.map((image) => image.startsWith(runFolder))).toEqual([true, true]);
      expect(input.deleteUploadsAfterTraining).toBe(true);

      const result = await run.result();
      expect(result.status).toBe('DONE');
      expect(result.generations.map((g) => g.avatars.length)).toEqual([3]);
      // The workers read both selfies from the store and uploaded them to the provider.
      expect(sim.stats().totals.uploads).toBe(2);
      // Trained, so the run deleted its selfies, claim included.
      expect(
        await eventually(
          () => files(join(blobDir, 'uploads')),
          (left) => left.length === 0,
        ),
      ).toEqual([]);

      // The same request id again finds the run, and stores nothing.
      const again = await pipelines.start(request, { requestId });
      expect(again.workflowId).toBe(run.workflowId);
      expect(await files(join(blobDir, 'uploads'))).toEqual([]);
      expect(sim.stats().totals.modelsCreated).toBe(1);

      // Bytes that are not an image are refused by field, and nothing is stored or started.
      const refused = await pipelines
        .start({ ...request, images: [bytes[0]!, Buffer.from('not an image')] })
        .catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(InputError);
      expect((refused as InputError).issues).toEqual([{ path: 'images.1', message: 'is not a JPEG or PNG' }]);
      expect(await files(join(blobDir, 'uploads'))).toEqual([]);
      expect(sim.stats().totals.modelsCreated).toBe(1);
    } finally {
      await pipelines.close();
      selfieStore.close();
    }
  });

  it('runs a campaign through the campaigns entry with only the blob store shared, and the erasure entry erases one of its people', async () => {
    const blobDir = temporaryDirectory('client-campaign-blobs-');
    const { pipelines, sim, taskQueue } = await stack(300, { blobDir });
    const store = openBlobStoreFromEnv({ BLOB_DIR: blobDir });
    // A tenant of its own: erasure also takes the tenant's subjectless runs under the person's
    // models, and the other tests' simulators hand out the same model ids.
    const tenant = uniqueName('t');
    try {
      const people = ['p-1', 'p-2'].map((subjectId, i) => ({
        subjectId,
        gender: 1 as const,
        styles: [3],
        images: selfies.files,
        mainImageIndex: 0,
        row: i + 1,
      }));
      // A subject the schema refuses is named by its place and field; nothing is stored.
      const refused = await startCampaign(pipelines.temporal, [people[0]!, { ...people[1]!, styles: [] }], {
        ...placementFrom({ taskQueue }),
        store,
      }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(InputError);
      expect((refused as InputError).issues.map((issue) => issue.path)).toEqual(['subjects.1.styles']);
      expect(await readdir(blobDir)).not.toContain('campaigns');

      const campaign = await startCampaign(pipelines.temporal, people, {
        ...placementFrom({ taskQueue }),
        store,
        tenant,
        campaignId: uniqueName('client-campaign'),
        options: { polling: FAST_POLLING },
      });
      const summary = await campaign.result();
      expect(summary).toMatchObject({ status: 'COMPLETED', total: 2, succeeded: 2 });
      expect(sim.stats().totals.modelsCreated).toBe(2);

      const report = await forgetSubject(pipelines.temporal, store, 'p-1', { tenant });
      expect(report.runs.map((run) => run.status)).toEqual(['COMPLETED']);
      expect(report.storedObjects).toBe(0);
      // The campaign's summary no longer names the person; the other keeps their outcome.
      const after = await getCampaign(pipelines.temporal, campaign.campaignId, { store }).summary();
      expect(after.subjects.map((s) => [s.subjectId, s.status])).toEqual([['p-2', 'DONE']]);
    } finally {
      store.close();
      await pipelines.close();
    }
  });

  it('refuses an invalid request before starting anything, naming each field', async () => {
    const { pipelines } = await stack(500);
    try {
      const attempt = pipelines.start({ images: ['relative.png'], styles: [], gender: 3 as never });
      await expect(attempt).rejects.toBeInstanceOf(InputError);
      const error = (await attempt.catch((e: unknown) => e)) as InputError;
      expect(error.issues.map((i) => i.path)).toEqual(
        expect.arrayContaining(['images.0', 'styles', 'gender']),
      );
    } finally {
      await pipelines.close();
    }
  });

  it('refuses a wrong selfie path before starting anything, naming images.1: no model at the provider', async () => {
    const { sim, worker } = await stack(500);
    const elsewhere = await writeSelfies(1, 'elsewhere-');
    const notAnImage = join(selfies.dir, 'not-an-image.png');
    await writeFile(notAnImage, 'plain text, not a PNG');
    // IMAGE_ROOTS where the client runs, as the workers have it.
    const pipelines = await createPipelineClient(
      { address, namespace, taskQueue: worker.taskQueues.pipeline! },
      {
        IMAGE_ROOTS: selfies.dir,
        PROVIDER_POLL_MIN_INTERVAL_MS: '100',
        SELFIE_CHECKS: 'false',
        AVATAR_CHECKS: 'false',
      },
    );
    try {
      const wrong = [join(selfies.dir, 'missing.png'), selfies.dir, notAnImage, elsewhere.files[0]!];
      for (const image of wrong) {
        const attempt = pipelines.start({ images: [selfies.files[0]!, image], styles: [3], gender: 1 });
        const error = await attempt.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InputError);
        expect((error as InputError).issues.map((i) => i.path)).toEqual(['images.1']);
        const training = pipelines.train({ images: [image], styles: [3], gender: 1 });
        expect(((await training.catch((e: unknown) => e)) as InputError).issues?.map((i) => i.path)).toEqual([
          'images.0',
        ]);
      }
      expect(sim.stats().totals.modelsCreated).toBe(0);
    } finally {
      await pipelines.close();
    }
  });
});

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { PNG } from 'pngjs';
import { createApiServer } from '../../src/api/server';
import { sweepUploads } from '../../src/api/upload-janitor';
import type { AppConfig, StorageConfig } from '../../src/config/load-config';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import {
  storageSettingsFromEnv,
  subjectPrefix,
  uploadBatchPrefix,
  uploadClaimKey,
  uploadsPrefix,
} from '../../src/storage';
import { S3BlobStore } from '@avatar-pipeline/client/storage/s3-blob-store';
import { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { startTestHttpServer, type TestHttpServer } from '../fixtures/http-test-server';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { testConfig } from '../helpers/pipeline-worker';
import { startS3TestServer, type S3TestServer } from '../helpers/s3-server';
import { writeSelfies } from '../helpers/selfie-files';
import {
  createDevServerEnv,
  devServerUnderTest,
  makeScratchDir,
  uniqueName,
  useOwnNamespace,
} from '../helpers/temporal-env';

const TOKEN = 'test-token-0123456789';
const BUCKET = 'pipeline-objects';
/** A cold machine builds versitygw from the Go module proxy first. */
const INSTALL_TIMEOUT_MS = 20 * 60_000;

interface Json {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * The S3 backend end to end: API, worker and simulator with a real S3-compatible server
 * (versitygw) between them, and no filesystem shared by the API and the worker.
 */
describe('object storage end to end (S3 backend)', () => {
  let s3: S3TestServer;
  let bucket: S3BlobStore;
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let imageProxy: TestHttpServer;
  let worker: PipelineWorkers;
  let workerRun: Promise<void>;
  let app: FastifyInstance;
  let base: string;
  let selfies: { dir: string; files: string[] };
  let storage: StorageConfig;
  let apiFiles: string;
  let restoreNamespace: (() => void) | undefined;

  beforeAll(async () => {
    const scratch = await makeScratchDir('s3-storage');
    apiFiles = path.join(scratch, 'api-files');
    s3 = await startS3TestServer(path.join(scratch, 's3'));
    await s3.createBucket(BUCKET);
    storage = storageSettingsFromEnv(s3.env(BUCKET, 'e2e'), path.join(scratch, 'unused'));
    bucket = new S3BlobStore({ bucket: BUCKET, prefix: '' }, s3.connection);
    // A namespace of its own: forget finds runs by subject and model id, and every test's simulator
    // numbers its models from 1001, so in a shared namespace it would find other tests' runs.
    restoreNamespace = await useOwnNamespace(uniqueName('s3-storage'));
    const { namespace } = devServerUnderTest();
    env = await createDevServerEnv();
    selfies = await writeSelfies(3, 's3-selfies-');
    // Avatar images are served through a proxy that answers each one 150 ms late, so archiving a
    // pipeline's avatars takes seconds (the outage test takes the store away in the middle of it).
    imageProxy = await startTestHttpServer((req, res) => {
      setTimeout(() => {
        fetch(`${new URL(sim.url).origin}${req.url ?? '/'}`)
          .then(async (answer) => {
            res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' });
            res.end(Buffer.from(await answer.arrayBuffer()));
          })
          .catch(() => res.writeHead(502).end());
      }, 150);
    });
    sim = await startSimulator({
      basePath: uniqueBasePath('s3'),
      progression: { mode: 'wall', trainingMs: 3_000, generationMs: 500 },
      publicOrigin: imageProxy.origin,
      // This test is about storage: small avatars (the default, 256 px, is sized for the face checks).
      avatarSize: 128,
    });
    const taskQueue = uniqueName('s3');
    // The worker may read files only from an empty directory of its own: selfies must come from the bucket.
    const workerRoots = [path.join(scratch, 'worker-only')];
    const workerConfig = testConfig({ namespace, taskQueue, providerUrl: sim.url, imageRoots: workerRoots });
    // Both workers, as deployed: the API sends provider calls to the provider task queue.
    worker = await PipelineWorkers.create({
      config: {
        ...workerConfig,
        // Avatars come from the image proxy, another origin than the provider's: listed, as a
        // deployment lists the CDN its provider serves images from.
        storage: { ...storage, avatarPrivateHosts: [new URL(imageProxy.origin).hostname] },
        // One activity at a time per worker, so the avatars of a pipeline are archived one after another.
        worker: { ...workerConfig.worker, maxConcurrentActivities: 1 },
      },
      connection: env.nativeConnection,
    });
    workerRun = worker.run();
    const apiBase = testConfig({
      namespace,
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
      archiveAvatars: true,
    });
    const config: AppConfig = {
      ...apiBase,
      storage,
      temporal: { ...apiBase.temporal, address: process.env.TEMPORAL_TEST_ADDRESS ?? 'unknown' },
      api: { ...apiBase.api, tokens: [TOKEN], blobDir: apiFiles },
    };
    app = await createApiServer({
      config,
      client: env.client,
      provider: new ProviderClient(config.provider),
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    await app?.close();
    worker?.shutdown();
    await workerRun;
    await sim?.stop();
    await imageProxy?.close();
    await env?.teardown();
    bucket?.close();
    await s3?.stop();
    restoreNamespace?.();
  });

  async function call(method: string, url: string, body?: FormData | object): Promise<Json> {
    const json = body !== undefined && !(body instanceof FormData);
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(json ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: json ? JSON.stringify(body) : body } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  }

  async function start(subjectId: string, styles = '3,5'): Promise<string> {
    const form = new FormData();
    for (const file of selfies.files) {
      form.append('selfies', new Blob([await readFile(file)], { type: 'image/png' }), path.basename(file));
    }
    form.append('styles', styles);
    form.append('gender', '1');
    form.append('subjectId', subjectId);
    form.append('polling', JSON.stringify(FAST_POLLING));
    const started = await call('POST', '/v1/pipelines', form);
    expect(started.status).toBe(202);
    return started.body.workflowId as string;
  }

  async function finished(id: string, timeoutMs = 40_000): Promise<Json['body']> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await call('GET', `/v1/pipelines/${id}`);
      if (answer.body.state !== 'running') return answer.body;
      if (Date.now() > deadline) {
        const pipeline = await env.client.workflow.getHandle(id).describe();
        const pending = pipeline.raw.pendingActivities?.[0];
        const activity = pending
          ? ` (${pending.activityType?.name} attempt ${pending.attempt}: ${pending.lastFailure?.message})`
          : '';
        throw new Error(`pipeline ${id} still running${activity}: ${JSON.stringify(answer.body)}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  const keysUnder = async (prefix: string) => (await bucket.list(prefix)).map((o) => o.key);
  const avatarsOf = (view: Json['body']) =>
    (view.result.generations as Array<{ avatars: any[] }>).flatMap((g) => g.avatars); // eslint-disable-line @typescript-eslint/no-explicit-any

  test('uploads land in the bucket, a worker without the API files trains from them, and archived avatars outlive the provider', async () => {
    const id = await start('person-archive');
    const owner = `e2e/${subjectPrefix('default', 'person-archive')}`;
    const uploads = await keysUnder(`e2e/${uploadsPrefix(id)}`);
    expect(uploads.filter((key) => key.endsWith('.png'))).toHaveLength(3);

    const view = await finished(id);
    expect(view).toMatchObject({ state: 'completed' });
    expect(view.result.status).toBe('DONE');
    const avatars = avatarsOf(view);
    expect(avatars).toHaveLength(16);
    for (const avatar of avatars) expect(avatar.archivedUrl).toMatch(/X-Amz-Signature=/);
    expect(await keysUnder(`${owner}avatars/`)).toHaveLength(16);

    // The provider forgets the whole model's images; the archive still has every avatar.
    sim.setOptions({ forgottenImageOrders: [view.result.modelId as number] });
    for (const avatar of avatars) {
      expect((await fetch(avatar.imageUrl as string)).status).toBe(410);
      const archived = await fetch(avatar.archivedUrl as string);
      expect(archived.status).toBe(200);
      const png = PNG.sync.read(Buffer.from(await archived.arrayBuffer()));
      expect(png.width).toBe(128);
    }
  }, 120_000);

  test('a campaign completes with only the bucket shared: the API stores its manifest there and the worker reads it', async () => {
    // The worker cannot read the API's files, so the subjects generate from a model trained from uploads.
    const trained = await finished(await start('campaign-model', '3'));
    expect(trained.result.status).toBe('DONE');
    const modelId = trained.result.modelId as number;
    const started = await call('POST', '/v1/campaigns', {
      campaignId: uniqueName('s3-campaign'),
      subjects: ['c1', 'c2'].map((subjectId) => ({ subjectId, gender: 1, styles: [5, 7], modelId })),
      options: { polling: FAST_POLLING },
    });
    expect(started.status).toBe(202);
    const campaignId = started.body.campaignId as string;
    const manifests = await keysUnder('e2e/campaigns/');
    expect(manifests.filter((key) => key.endsWith('/manifest.json'))).toHaveLength(1);
    expect(manifests.filter((key) => /\/subjects-[0-9a-f]{64}\.jsonl$/.test(key))).toHaveLength(1);

    const summary = await env.client.workflow.getHandle(campaignId).result();
    expect(summary).toMatchObject({ state: 'completed' });
    const read = await call('GET', `/v1/campaigns/${campaignId}/summary`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ status: 'COMPLETED', total: 2, succeeded: 2, failed: 0 });
    expect(read.body.subjects.map((s: { subjectId: string }) => s.subjectId).sort()).toEqual(['c1', 'c2']);
    // Nothing of the campaign on the API's disk: no manifest, no campaign folder.
    const apiSide = await readdir(apiFiles, { recursive: true }).catch(() => [] as string[]);
    expect(apiSide.filter((name) => /campaign|\.jsonl$/.test(name))).toEqual([]);
  }, 120_000);

  test('the store down for 20 s mid-archive: every avatar archived once, none lost', async () => {
    const id = await start('person-outage');
    const owner = `e2e/${subjectPrefix('default', 'person-outage')}`;
    // Wait for the first archived avatar, then take the store away.
    const deadline = Date.now() + 60_000;
    let before: string[] = [];
    while (before.length === 0) {
      if (Date.now() > deadline) throw new Error('no avatar was archived within 60 s');
      await new Promise((r) => setTimeout(r, 20));
      before = await keysUnder(`${owner}avatars/`);
    }
    await s3.stop();
    expect(before.length).toBeLessThan(16); // the outage really began mid-archive
    await new Promise((r) => setTimeout(r, 20_000));
    await s3.restart();

    const view = await finished(id, 120_000);
    expect(view.state).toBe('completed');
    const avatars = avatarsOf(view);
    expect(avatars).toHaveLength(16);
    const keys = await keysUnder(`${owner}avatars/`);
    expect(keys).toHaveLength(16);
    expect(new Set(avatars.map((a) => a.archiveKey)).size).toBe(16);
    expect(keys.sort()).toEqual(avatars.map((a) => `e2e/${a.archiveKey as string}`).sort());
    for (const generation of view.result.generations) expect(generation.notArchived ?? []).toEqual([]);
  }, 180_000);

  test('forget erases the subject from the bucket, its results stop linking, and a second forget finds nothing left', async () => {
    const id = await start('person-forget', '3');
    const view = await finished(id);
    expect(avatarsOf(view).every((a) => typeof a.archivedUrl === 'string')).toBe(true);
    const owner = `e2e/${subjectPrefix('default', 'person-forget')}`;
    expect((await keysUnder(owner)).length).toBeGreaterThan(0);

    const first = await call('DELETE', '/v1/subjects/person-forget');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      storedObjects: 0,
      runs: [{ workflowId: id, status: 'COMPLETED' }],
      providerHeld: { modelIds: [view.result.modelId], canDelete: false },
    });
    expect(first.body.providerHeld.orderIds).toEqual(
      view.result.generations.map((g: { orderId: number }) => g.orderId),
    );
    expect(JSON.stringify(first.body)).not.toContain('person-forget');
    expect(await keysUnder(owner)).toEqual([]);
    expect(await keysUnder(`e2e/${uploadsPrefix(id)}`)).toEqual([]);

    // The run is deleted from Temporal (in the background): until it is gone it links nothing.
    const after = await call('GET', `/v1/pipelines/${id}`);
    if (after.status === 200) expect(avatarsOf(after.body).some((a) => 'archivedUrl' in a)).toBe(false);
    else expect(after.status).toBe(404);

    const second = await call('DELETE', '/v1/subjects/person-forget');
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ storedObjects: 0 });
    expect(JSON.stringify(second.body)).not.toContain('person-forget');
  }, 120_000);

  test('retention: a run deletes its selfies from the bucket itself, the janitor sweeps a leftover, and nothing of a cancelled run remains', async () => {
    const pipelineObjects = new S3BlobStore({ bucket: BUCKET, prefix: 'e2e/' }, s3.connection);
    const sweep = () =>
      sweepUploads({
        store: pipelineObjects,
        client: env.client,
        retention: { kind: 'after-training' },
      });
    try {
      const done = await start('person-retained', '3');
      expect((await finished(done)).state).toBe('completed');
      const cancelled = await start('person-cancelled', '3');
      expect((await call('POST', `/v1/pipelines/${cancelled}/cancel`)).status).toBe(202);
      expect((await finished(cancelled)).state).toBe('cancelled');
      // Under SELFIE_RETENTION=after-training each run deleted its uploads once training was over.
      expect(await keysUnder(`e2e/${uploadsPrefix(done)}`)).toEqual([]);
      // What a run could not delete (a store outage) is left to the janitor: a leftover folder of
      // the finished run, claimed for it, is swept from the bucket.
      const leftover = uploadBatchPrefix(done, 'leftover');
      await pipelineObjects.put(
        uploadClaimKey(leftover),
        Buffer.from(JSON.stringify({ workflowId: done, since: Date.now() })),
        'application/json',
      );
      await pipelineObjects.put(`${leftover}selfie-1.png`, Buffer.from('selfie bytes'), 'image/png');
      expect(await keysUnder(`e2e/${uploadsPrefix(done)}`)).toHaveLength(2);

      expect(await sweep()).toEqual([leftover]);
      expect(await keysUnder(`e2e/${uploadsPrefix(done)}`)).toEqual([]);
      expect(await keysUnder(`e2e/${uploadsPrefix(cancelled)}`)).toEqual([]);
      expect(await keysUnder(`e2e/${subjectPrefix('default', 'person-cancelled')}`)).toEqual([]);
      // The finished pipeline keeps its archived avatars: retention is about selfies.
      expect(await keysUnder(`e2e/${subjectPrefix('default', 'person-retained')}avatars/`)).not.toEqual([]);
    } finally {
      pipelineObjects.close();
    }
  }, 120_000);
});

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { PipelineWorkers } from '../../src/worker/pipeline-workers';
import type { FastifyInstance } from 'fastify';
import { sweepUploads, uploadedBatches } from '../../src/api/upload-janitor';
import { FsBlobStore } from '../../src/storage';
import type { AppConfig } from '../../src/config/load-config';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { createTestWorker, testConfig } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, makeScratchDir, uniqueName } from '../helpers/temporal-env';
import { startTestApi } from '../helpers/test-api';

/*
 * Issue 14, finding 8, end to end: an upload is claimed for its pipeline before the start, kept
 * while the pipeline needs it, and deleted by the janitor once the pipeline is past training.
 */
const TOKEN = 'retention-token-0123456789';

describe('uploaded selfies are deleted once their pipeline no longer needs them', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let worker: PipelineWorkers;
  let workerRun: Promise<void>;
  let app: FastifyInstance;
  let base: string;
  let blobDir: string;

  beforeAll(async () => {
    env = await createDevServerEnv();
    const selfies = await writeSelfies(2, 'retention-selfies-');
    blobDir = path.join(await makeScratchDir('retention'), 'blobs');
    sim = await startSimulator({
      basePath: uniqueBasePath('retention'),
      progression: { mode: 'wall', trainingMs: 300, generationMs: 200 },
    });
    const taskQueue = uniqueName('retention');
    const imageRoots = [blobDir, selfies.dir];
    worker = await createTestWorker({
      connection: env.nativeConnection,
      taskQueue,
      providerUrl: sim.url,
      imageRoots,
    });
    workerRun = worker.run();
    const config = testConfig({ taskQueue, providerUrl: sim.url, imageRoots });
    const apiConfig: AppConfig = {
      ...config,
      temporal: { ...config.temporal, address: process.env.TEMPORAL_TEST_ADDRESS ?? 'unknown' },
      api: { ...config.api, tokens: [TOKEN], blobDir },
    };
    ({ app, base } = await startTestApi({ config: apiConfig, client: env.client }));
  });

  afterAll(async () => {
    await app?.close();
    worker?.shutdown();
    await workerRun;
    await sim?.stop();
    await env?.teardown();
  });

  it('claims the upload for the run, keeps it for the run, and the janitor deletes it after the run', async () => {
    const form = new FormData();
    const upload = await writeSelfies(2, 'retention-upload-');
    for (const file of upload.files)
      form.append('selfies', new Blob([await readFile(file)]), path.basename(file));
    form.append('styles', '3');
    form.append('gender', '1');
    form.append('polling', JSON.stringify(FAST_POLLING));
    const response = await fetch(`${base}/v1/pipelines`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: form,
    });
    expect(response.status).toBe(202);
    const { workflowId } = (await response.json()) as { workflowId: string };

    const store = new FsBlobStore(blobDir);
    const batches = await uploadedBatches(store);
    expect(batches).toEqual([expect.objectContaining({ workflowId })]);
    const { prefix } = batches[0]!;

    await env.client.workflow.getHandle(workflowId).result();
    const removed = await sweepUploads({ store, client: env.client, retention: { kind: 'after-training' } });
    expect(removed).toEqual([prefix]);
    expect(await store.list('uploads/')).toEqual([]);
  });
});

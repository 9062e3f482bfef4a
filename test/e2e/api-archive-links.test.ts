import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createApiServer } from '../../src/api/server';
import { loadConfig } from '../../src/config/load-config';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { startS3TestServer, type S3TestServer } from '../helpers/s3-server';
import { writeSelfies } from '../helpers/selfie-files';
import { devServerUnderTest, makeScratchDir, uniqueName } from '../helpers/temporal-env';
import { startApiProcess } from '../helpers/api-stack';
import {
  killAllSpawned,
  requireCompiledCli,
  startWorkerProcess,
  type CliProcess,
} from '../helpers/worker-process';

/*
 * Archived avatar links outlive the provider, with the `avatar-pipeline api` and `worker` commands
 * as deployed: a pipeline started through the API with uploaded selfies and a production-like
 * workflow id (the longest Idempotency-Key) completes, the simulator stops, and every archived
 * avatar link still opens an image, on the filesystem store and on S3. The API runs with
 * IMAGE_ROOTS set and nothing else changed; workers may read files only from an empty directory,
 * so the selfies must come from the store; on S3 the worker also runs in a directory of its own,
 * sharing nothing with the API but the bucket.
 */
const TOKEN = 'archive-links-token-0123456789';
const BUCKET = 'archive-links';
/** A cold machine builds versitygw from the Go module proxy first. */
const INSTALL_TIMEOUT_MS = 20 * 60_000;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);

interface Avatar {
  imageUrl: string;
  archiveKey?: string;
  archivedUrl?: string;
}

beforeAll(() => requireCompiledCli());
afterAll(() => killAllSpawned());

/** What a pipeline under test needs: its own simulator and queues, the dev server of the run. */
async function setting(name: string): Promise<{ sim: RunningSimulator; env: Record<string, string> }> {
  const { address, namespace } = devServerUnderTest();
  const sim = await startSimulator({
    basePath: uniqueBasePath(name),
    progression: { mode: 'wall', trainingMs: 1_500, generationMs: 300 },
  });
  return {
    sim,
    env: {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: uniqueName(name),
      PROVIDER_BASE_URL: sim.url,
      PROVIDER_API_KEY: 'sim-key',
      // FAST_POLLING is below the default PROVIDER_POLL_MIN_INTERVAL_MS.
      PROVIDER_POLL_MIN_INTERVAL_MS: '100',
    },
  };
}

/** `avatar-pipeline api` in `cwd` with the test's token. */
function startApi(env: Record<string, string>, cwd: string): Promise<{ api: CliProcess; url: string }> {
  return startApiProcess({ API_TOKENS: TOKEN, ...env }, cwd);
}

/** An Idempotency-Key as long as the API takes: the workflow id becomes the longest unhashed key segment. */
function productionLikeKey(): string {
  return `tenant-7:order:${randomBytes(64).toString('hex')}`.slice(0, 112);
}

async function startWithUploads(url: string, key: string): Promise<string> {
  const selfies = await writeSelfies(3, 'archive-links-selfies-');
  const form = new FormData();
  for (const file of selfies.files) {
    form.append('selfies', new Blob([await readFile(file)], { type: 'image/png' }), path.basename(file));
  }
  form.append('styles', '3');
  form.append('gender', '1');
  form.append('polling', JSON.stringify(FAST_POLLING));
  const started = await fetch(`${url}/v1/pipelines`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': key },
    body: form,
  });
  const body = (await started.json()) as { workflowId: string };
  expect(started.status).toBe(202);
  return body.workflowId;
}

async function finished(
  url: string,
  id: string,
): Promise<{ state: string; result: { generations: Array<{ avatars: Avatar[] }> } }> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const answer = await fetch(`${url}/v1/pipelines/${id}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const view = (await answer.json()) as {
      state: string;
      result: { generations: Array<{ avatars: Avatar[] }> };
    };
    if (view.state !== 'running') return view;
    if (Date.now() > deadline) throw new Error(`pipeline ${id} still running: ${JSON.stringify(view)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** Every archived link answers 200 with PNG or JPEG bytes, while the provider's own URLs answer nothing. */
async function expectEveryLinkOpens(avatars: Avatar[], sim: RunningSimulator): Promise<void> {
  expect(avatars.length).toBeGreaterThan(0);
  await sim.stop();
  await expect(fetch(avatars[0]!.imageUrl)).rejects.toThrow();
  for (const avatar of avatars) {
    expect(avatar.archivedUrl).toEqual(expect.any(String));
    const answer = await fetch(avatar.archivedUrl!);
    const bytes = Buffer.from(await answer.arrayBuffer());
    expect({ url: avatar.archivedUrl, status: answer.status }).toEqual({
      url: avatar.archivedUrl,
      status: 200,
    });
    const magic = bytes.subarray(0, 4).equals(PNG_MAGIC) || bytes.subarray(0, 3).equals(JPEG_MAGIC);
    expect(magic).toBe(true);
  }
}

/** A GET whose Host header names another server, as a client may send it (fetch does not let one). */
function getWithHost(url: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { authorization: `Bearer ${TOKEN}`, host } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve(body));
    });
    request.on('error', reject);
  });
}

describe('archived avatar links from API-started pipelines', () => {
  test('filesystem store: the API starts with IMAGE_ROOTS set and nothing else changed; every link opens after the simulator stops; API_PUBLIC_URL, not Host, makes the links', async () => {
    const scratch = await makeScratchDir('archive-links-fs');
    const machine = path.join(scratch, 'machine');
    const imageRoot = path.join(scratch, 'operator-images');
    const empty = path.join(scratch, 'worker-empty');
    await Promise.all([machine, imageRoot, empty].map((dir) => mkdir(dir, { recursive: true })));
    const { sim, env } = await setting('links-fs');
    try {
      // BLOB_DIR stays at its default (.blobs in the working directory), outside IMAGE_ROOTS.
      const { url } = await startApi({ ...env, IMAGE_ROOTS: imageRoot }, machine);
      await startWorkerProcess({ ...env, IMAGE_ROOTS: empty }, machine);

      const id = await startWithUploads(url, productionLikeKey());
      const view = await finished(url, id);
      expect(view.state).toBe('completed');
      const avatars = view.result.generations.flatMap((g) => g.avatars);
      for (const avatar of avatars) expect(avatar.archivedUrl).toMatch(new RegExp(`^${url}/archive/`));
      expect(
        Math.max(...avatars.map((a) => a.archivedUrl!.length - `${url}/archive/`.length)),
      ).toBeGreaterThan(100);

      // Finding 8d: with API_PUBLIC_URL set, a forged Host header does not choose the links' origin.
      const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS! });
      try {
        const config = loadConfig(
          {
            ...env,
            API_TOKENS: TOKEN,
            IMAGE_ROOTS: imageRoot,
            API_PUBLIC_URL: 'https://avatars.example.test/base/',
          },
          machine,
        );
        const client = new Client({ connection, namespace: env.TEMPORAL_NAMESPACE });
        // The workflow was given keys in the store, never a path on the API's machine.
        const history = await client.workflow.getHandle(id).fetchHistory();
        const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
        const input = JSON.parse(Buffer.from(payload!.data!).toString('utf8')) as { images: string[] };
        expect(input.images).toEqual(
          [1, 2, 3].map((n) => expect.stringMatching(new RegExp(`^blob:uploads/.+/selfie-${n}\\.png$`))),
        );
        const app = await createApiServer({ config, client });
        try {
          const origin = await app.listen({ port: 0, host: '127.0.0.1' });
          const answer = await getWithHost(`${origin}/v1/pipelines/${id}`, 'attacker.example');
          const links = (JSON.parse(answer) as typeof view).result.generations.flatMap((g) => g.avatars);
          expect(
            links.map((a) => a.archivedUrl?.startsWith('https://avatars.example.test/base/archive/')),
          ).toEqual(links.map(() => true));
        } finally {
          await app.close();
        }
      } finally {
        await connection.close();
      }

      await expectEveryLinkOpens(avatars, sim);
    } finally {
      await killAllSpawned();
      await sim.stop();
    }
  }, 240_000);

  describe('S3 store', () => {
    let s3: S3TestServer;
    let scratch: string;
    beforeAll(async () => {
      scratch = await makeScratchDir('archive-links-s3');
      s3 = await startS3TestServer(path.join(scratch, 's3'));
      await s3.createBucket(BUCKET);
    }, INSTALL_TIMEOUT_MS);
    afterAll(() => s3?.stop());

    test('a worker on another machine (its own directory, no files, the bucket) trains from uploaded selfies, and every link opens after the simulator stops', async () => {
      const apiMachine = path.join(scratch, 'api-machine');
      const workerMachine = path.join(scratch, 'worker-machine');
      const imageRoot = path.join(apiMachine, 'operator-images');
      const empty = path.join(workerMachine, 'empty');
      await Promise.all([imageRoot, empty].map((dir) => mkdir(dir, { recursive: true })));
      const { sim, env } = await setting('links-s3');
      const storage = s3.env(BUCKET, 'deployment');
      try {
        const { url } = await startApi({ ...env, ...storage, IMAGE_ROOTS: imageRoot }, apiMachine);
        await startWorkerProcess({ ...env, ...storage, IMAGE_ROOTS: empty }, workerMachine);

        const id = await startWithUploads(url, productionLikeKey());
        const view = await finished(url, id);
        expect(view.state).toBe('completed');
        const avatars = view.result.generations.flatMap((g) => g.avatars);
        for (const avatar of avatars) expect(avatar.archivedUrl).toMatch(/X-Amz-Signature=/);
        await expectEveryLinkOpens(avatars, sim);
      } finally {
        await killAllSpawned();
        await sim.stop();
      }
    }, 240_000);
  });
});

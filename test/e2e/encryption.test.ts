import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { connectClient } from '@avatar-pipeline/client/client/connect';
import { startCampaign } from '@avatar-pipeline/client/campaign/campaigns';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import type { EncryptionConfig } from '@avatar-pipeline/client/codec/encryption-keys';
import type { payloadsToJson } from '../../src/codec/payload-json';
import { subjectSearchToken } from '@avatar-pipeline/client/codec/subject-token';
import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { syntheticSelfiePng } from '../../src/samples/synthetic-selfie';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { fsStorage, testConfig } from '../helpers/pipeline-worker';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
import { mentions } from '../helpers/secret-scan';
import { listWorkflowIds, showHistory, temporalCli, waitForListed } from '../helpers/temporal-cli';
import {
  createDevServerEnv,
  devServerUnderTest,
  makeScratchDir,
  uniqueName,
  useOwnNamespace,
} from '../helpers/temporal-env';

const ROOT = path.join(__dirname, '..', '..');
const CODEC_TOKEN = `codec-${randomUUID()}`;

/**
 * With payload encryption on, the server's stored history holds no personal data in plaintext:
 * no selfie reference, no avatar URL, no subject id. Clients still read everything, and the codec
 * server decodes for token holders only.
 */
describe('payload encryption end to end', () => {
  const encryption: EncryptionConfig = {
    currentKeyId: 'test-k1',
    keys: [{ id: 'test-k1', key: randomBytes(32) }],
  };
  let env: TestWorkflowEnvironment;
  let client: Client;
  let sim: RunningSimulator;
  let worker: PipelineWorkers;
  let running: Promise<void>;
  let taskQueue: string;
  let selfieDir: string;
  let selfies: string[];
  let blobDir: string;

  let restoreNamespace: (() => void) | undefined;

  beforeAll(async () => {
    // Encrypted runs stay out of the shared namespace, where other tests' clients list workflows.
    restoreNamespace = await useOwnNamespace('encrypted');
    env = await createDevServerEnv();
    const { address, namespace } = devServerUnderTest();
    taskQueue = uniqueName('encrypted');
    // The directory name is personal data as well: it names the person.
    selfieDir = path.join(await makeScratchDir('encryption'), `selfies-of-${randomUUID()}`);
    await mkdir(selfieDir);
    selfies = [];
    for (let i = 1; i <= 2; i++) {
      const file = path.join(selfieDir, `face-${i}.png`);
      await writeFile(file, syntheticSelfiePng(i, 64));
      selfies.push(file);
    }
    sim = await startSimulator({ progression: { mode: 'wall', trainingMs: 500, generationMs: 300 } });
    const base = testConfig({ taskQueue, namespace, providerUrl: sim.url, imageRoots: [selfieDir] });
    blobDir = await makeScratchDir('encrypted-blobs');
    worker = await PipelineWorkers.create({
      config: {
        ...base,
        temporal: { ...base.temporal, encryption },
        campaigns: { maxInFlight: 10 },
        storage: fsStorage(blobDir),
      },
      connection: env.nativeConnection,
    });
    running = worker.run();
    client = await connectClient({ address, namespace, taskQueue, encryption });
  });
  afterAll(async () => {
    if (worker) {
      worker.shutdown();
      await running;
    }
    await client?.connection.close();
    await sim?.stop();
    await env?.teardown();
    restoreNamespace?.();
  });

  const polling = { initialIntervalMs: 200, minIntervalMs: 200, maxIntervalMs: 400 };

  test('a pipeline leaves no selfie reference, avatar URL or subject id in plaintext history', async () => {
    const subjectId = `person-${randomUUID()}`;
    const pipeline = await startPipeline(
      client,
      { images: selfies, styles: [3, 5], gender: 2, subjectId, polling },
      placementFrom({ taskQueue }),
    );
    const result: PipelineResult = await pipeline.result();
    // The client decrypts: the result is whole.
    expect(result.subjectId).toBe(subjectId);
    const imageUrls = result.generations.flatMap((g) => g.avatars.map((a) => a.imageUrl));
    expect(imageUrls).toHaveLength(16);
    expect((await pipeline.progress()).subjectId).toBe(subjectId);

    const histories = await historiesOfRun(pipeline.workflowId);
    expect(Object.keys(histories).length).toBeGreaterThanOrEqual(2); // the pipeline (its styles included) and its model claim
    const personal = [subjectId, selfieDir, ...selfies, ...imageUrls];
    for (const [workflowId, history] of Object.entries(histories)) {
      expect({ workflowId, found: personal.filter((secret) => mentions(history, secret)) }).toEqual({
        workflowId,
        found: [],
      });
    }

    // SubjectId holds a keyed hash of the subject: searchable by those who hold the key, not readable.
    const token = subjectSearchToken(encryption, subjectId);
    // Search attributes are stored as they are (so the token is there to see), and the scan finds it.
    expect(mentions(histories[pipeline.workflowId]!, token)).toBe(true);
    expect(await waitForListed(`SubjectId = '${token}'`, [pipeline.workflowId])).toEqual([
      pipeline.workflowId,
    ]);
    expect(await listWorkflowIds(`SubjectId = '${subjectId}'`)).toEqual([]);
    // Operators get the query from the CLI, which knows the keys.
    const query = await subjectQueryCli(subjectId, encryption);
    expect(await listWorkflowIds(query)).toEqual([pipeline.workflowId]);
    const listed = await temporalCli([
      'workflow',
      'list',
      '--query',
      `SubjectId = '${token}'`,
      '--output',
      'json',
    ]);
    expect(mentions(listed, token)).toBe(true); // the scan sees through base64, so its silence above means something
    expect(mentions(listed, subjectId)).toBe(false);
  });

  test("a campaign's pipelines are named by keyed hash: no subject id in workflow ids or histories", async () => {
    const people = [`person-${randomUUID()}`, `person-${randomUUID()}`];
    const campaign = await startCampaign(
      client,
      people.map((subjectId, i) => ({
        subjectId,
        images: selfies,
        styles: [3],
        gender: 1 as const,
        mainImageIndex: 0,
        row: i + 2,
      })),
      {
        ...placementFrom({ taskQueue }),
        store: new FsBlobStore(blobDir),
        options: { polling },
      },
    );
    const summary = await campaign.result();
    // The client decrypts: the summary names the people, and each row its pipeline's id.
    expect(summary.subjects.map((s) => [s.subjectId, s.status])).toEqual(people.map((p) => [p, 'DONE']));
    const childIds = people.map(
      (subjectId) => `${campaign.campaignId}/${subjectSearchToken(encryption, subjectId)}`,
    );
    expect(summary.subjects.map((s) => s.workflowId)).toEqual(childIds);
    const rows = [];
    for await (const row of campaign.resultRows()) rows.push(row);
    expect(new Set(rows.map((r) => r.subjectId))).toEqual(new Set(people));
    // The progress the campaign kept in its memo (subject ids in flight while it ran) is decrypted too.
    expect(await campaign.progress()).toMatchObject({ state: 'completed', counts: { done: 2 } });

    const ids = await listWorkflowIds(`RootWorkflowId = '${campaign.campaignId}'`);
    expect(ids).toEqual(expect.arrayContaining([campaign.campaignId, ...childIds]));
    for (const id of ids) {
      expect(people.filter((p) => id.includes(p))).toEqual([]);
      const history = await showHistory(id);
      expect({ id, found: [...people, selfieDir].filter((secret) => mentions(history, secret)) }).toEqual({
        id,
        found: [],
      });
    }
  });

  test('failure messages are encrypted too: a missing selfie is named to the client only', async () => {
    const missing = path.join(selfieDir, `missing-${randomUUID()}.png`);
    const pipeline = await startPipeline(
      client,
      { images: [missing], styles: [3], gender: 1, polling },
      placementFrom({ taskQueue }),
    );
    const failure = await pipeline.result().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(causeMessages(failure)).toContain(missing);
    const history = await showHistory(pipeline.workflowId);
    expect(history).toContain('WORKFLOW_EXECUTION_FAILED');
    expect(mentions(history, missing)).toBe(false);
    expect(mentions(history, selfieDir)).toBe(false);
  });

  describe('codec server', () => {
    let codecServer: ChildProcess;
    let url: string;

    beforeAll(async () => {
      ({ child: codecServer, url } = await startCodecServerProcess({
        ENCRYPTION_KEYS: keysEnv(encryption),
        CODEC_SERVER_TOKENS: CODEC_TOKEN,
        CODEC_CORS_ORIGINS: 'http://localhost:8080',
      }));
    });
    afterAll(async () => {
      if (codecServer && codecServer.exitCode === null) {
        const exited = new Promise((resolve) => codecServer.once('exit', resolve));
        codecServer.kill('SIGTERM');
        await exited;
      }
    });

    test('decodes stored payloads for an authorised caller and refuses others', async () => {
      const subjectId = `person-${randomUUID()}`;
      const pipeline = await startPipeline(
        client,
        { images: selfies, styles: [7], gender: 1, subjectId, polling },
        placementFrom({ taskQueue }),
      );
      await pipeline.result();
      const history = JSON.parse(await showHistory(pipeline.workflowId)) as HistoryJson;
      const input = history.events[0]!.workflowExecutionStartedEventAttributes!.input!;
      expect(mentions(JSON.stringify(input), subjectId)).toBe(false);

      const decode = (headers: Record<string, string>) =>
        fetch(`${url}/decode`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
          body: JSON.stringify(input),
        });
      const authorised = await decode({ Authorization: `Bearer ${CODEC_TOKEN}` });
      expect(authorised.status).toBe(200);
      const decoded = (await authorised.json()) as ReturnType<typeof payloadsToJson>;
      const args = decoded.payloads.map(
        (p) => JSON.parse(Buffer.from(p.data, 'base64').toString('utf8')) as unknown,
      );
      expect(args).toEqual([expect.objectContaining({ subjectId, images: selfies })]);

      expect((await decode({})).status).toBe(401);
      expect((await decode({ Authorization: 'Bearer not-the-token' })).status).toBe(403);

      // The Temporal CLI speaks the same protocol: with the codec server it shows the history decoded.
      const shown = await temporalCli([
        'workflow',
        'show',
        '--workflow-id',
        pipeline.workflowId,
        '--output',
        'json',
        '--codec-endpoint',
        url,
        '--codec-auth',
        `Bearer ${CODEC_TOKEN}`,
      ]);
      expect(mentions(shown, subjectId)).toBe(true);
    });
  });
});

interface HistoryJson {
  events: { workflowExecutionStartedEventAttributes?: { input?: { payloads: unknown[] } } }[];
}

/** Histories of a pipeline and of every workflow it started (styles, claims), by workflow id. */
async function historiesOfRun(workflowId: string): Promise<Record<string, string>> {
  const ids = new Set([workflowId, ...(await listWorkflowIds(`RootWorkflowId = '${workflowId}'`))]);
  const histories: Record<string, string> = {};
  for (const id of ids) histories[id] = await showHistory(id);
  return histories;
}

function causeMessages(err: unknown): string {
  const messages: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = e.cause) messages.push(e.message);
  return messages.join(' <- ');
}

/** `avatar-pipeline subject-query <subjectId>` with the keys in its environment; resolves to the query it prints. */
async function subjectQueryCli(subjectId: string, encryption: EncryptionConfig): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(ROOT, 'bin', 'avatar-pipeline.js'), 'subject-query', subjectId],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ENCRYPTION_KEYS: keysEnv(encryption) },
    },
  );
  return stdout.trim();
}

function keysEnv(encryption: EncryptionConfig): string {
  return encryption.keys.map((k) => `${k.id}:${k.key.toString('base64')}`).join(',');
}

/** `avatar-pipeline codec-server --port 0` (the compiled CLI: npm test builds it first); resolves with its URL. */
function startCodecServerProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin', 'avatar-pipeline.js'), 'codec-server', '--port', '0'],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`codec server did not start:\n${stderr}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) {
        clearTimeout(timer);
        resolve({ child, url: line.trim() });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`codec server exited (${String(code)}):\n${stderr}`));
    });
  });
}

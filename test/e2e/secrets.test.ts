import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { syntheticSelfiePng } from '../../src/samples/synthetic-selfie';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { startTestHttpServer, type TestHttpServer } from '../fixtures/http-test-server';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { byteFragments, mentions } from '../helpers/secret-scan';
import { showHistory } from '../helpers/temporal-cli';
import { createDevServerEnv, devServerUnderTest, makeScratchDir, uniqueName } from '../helpers/temporal-env';
import {
  killAllSpawned,
  requireCompiledCli,
  spawnCli,
  startWorkerProcess,
  waitFor,
  type CliProcess,
} from '../helpers/worker-process';

/*
 * Secrets stay out of histories and logs: after a full run (the API and a worker as real processes, debug
 * logging, the simulator demanding a live-looking provider key, a signed callback), neither the
 * provider key, nor the API tokens, nor the callback signing secret is in any stored history or
 * in either process's logs; and the selfies' bytes are in no history. With payload encryption on,
 * personal data (references, avatar URLs, subject ids) is not in plaintext either: that is
 * test/e2e/encryption.test.ts.
 */

const PROVIDER_KEY = `sk-live-SECRET-${randomBytes(12).toString('hex')}`;
const TOKEN_START = `tok-start-SECRET-${randomBytes(12).toString('hex')}`;
const TOKEN_READ = `tok-read-SECRET-${randomBytes(12).toString('hex')}`;
const SIGNING_SECRET = `whsec-SECRET-${randomBytes(16).toString('hex')}`;
const WEBHOOK_KEY = `webhook-key-SECRET-${randomBytes(16).toString('hex')}`;
/** Every secret of the run; the registered endpoint's whsec_ secret joins once the API made it. */
const SECRETS: Record<string, string> = {
  PROVIDER_KEY,
  TOKEN_START,
  TOKEN_READ,
  SIGNING_SECRET,
  WEBHOOK_KEY,
};

interface HistoryJson {
  events: {
    eventType?: string;
    childWorkflowExecutionStartedEventAttributes?: { workflowExecution?: { workflowId?: string } };
  }[];
}

describe('secrets stay out of histories and logs of a full run', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let receiver: TestHttpServer;
  let worker: CliProcess;
  let api: CliProcess;
  let apiUrl: string;
  let selfies: Buffer[];
  const subjectId = `person-${randomUUID()}`;

  beforeAll(async () => {
    requireCompiledCli();
    env = await createDevServerEnv();
    const root = await makeScratchDir('secrets');
    const selfieDir = path.join(root, 'selfies');
    await mkdir(selfieDir);
    selfies = [syntheticSelfiePng(41, 96), syntheticSelfiePng(42, 96)];
    for (const [i, png] of selfies.entries()) await writeFile(path.join(selfieDir, `s${i + 1}.png`), png);

    sim = await startSimulator({
      apiKey: PROVIDER_KEY,
      basePath: uniqueBasePath('secrets'),
      progression: { mode: 'wall', trainingMs: 500, generationMs: 300 },
      avatarsPerOrder: 2,
    });
    receiver = await startTestHttpServer((_req, res) => res.writeHead(204).end());
    const { address, namespace } = devServerUnderTest();
    const common = {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: uniqueName('secrets'),
      PROVIDER_BASE_URL: sim.url,
      PROVIDER_API_KEY: PROVIDER_KEY,
      IMAGE_ROOTS: root,
      BLOB_DIR: await makeScratchDir('secrets-blobs'),
      // FAST_POLLING is below the default PROVIDER_POLL_MIN_INTERVAL_MS.
      PROVIDER_POLL_MIN_INTERVAL_MS: '100',
      CALLBACK_SIGNING_SECRET: SIGNING_SECRET,
      CALLBACK_PRIVATE_HOSTS: '127.0.0.1',
      WEBHOOK_SIGNING_KEY: WEBHOOK_KEY,
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
    };
    worker = await startWorkerProcess(common);
    api = spawnCli(['api', '--port', '0', '--host', '127.0.0.1'], {
      ...common,
      API_TOKENS: `${TOKEN_START},${TOKEN_READ}`,
    });
    await waitFor('the API to listen', () => /^http:\/\/127\.0\.0\.1:\d+$/m.test(api.output()), 30_000);
    apiUrl = /^(http:\/\/127\.0\.0\.1:\d+)$/m.exec(api.output())![1]!;
  });

  afterAll(async () => {
    await killAllSpawned();
    await receiver?.close();
    await sim?.stop();
    await env?.teardown();
  });

  test('a pipeline started through the API, with uploads and a callback: no secret or selfie byte in any history, no secret in any log', async () => {
    // A registered endpoint too: its secret is answered once and must go nowhere else.
    const registered = await fetch(`${apiUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN_START}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiver.origin}/hooks/endpoint` }),
    });
    expect(registered.status).toBe(201);
    SECRETS.ENDPOINT_SECRET = ((await registered.json()) as { secret: string }).secret;
    // The key bytes behind whsec_, as a signer would hold them.
    SECRETS.ENDPOINT_KEY_BASE64 = SECRETS.ENDPOINT_SECRET.slice('whsec_'.length);

    // Start: the selfies uploaded through the API, which passes the workers references to them.
    const form = new FormData();
    for (const [i, png] of selfies.entries()) form.append('selfies', new Blob([png]), `s${i + 1}.png`);
    form.append('styles', '3,5');
    form.append('gender', '2');
    form.append('subjectId', subjectId);
    form.append('callbackUrl', `${receiver.origin}/hooks/done`);
    form.append('polling', JSON.stringify(FAST_POLLING));
    const started = await fetch(`${apiUrl}/v1/pipelines`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN_START}`, 'idempotency-key': uniqueName('secrets') },
      body: form,
    });
    expect(started.status).toBe(202);
    const { workflowId } = (await started.json()) as { workflowId: string };

    // Follow it with the other token until the end, then until its callback has been delivered.
    let final: { state: string; result?: { generations: { avatars: unknown[] }[] } } | undefined;
    await waitFor(
      'the pipeline to end',
      async () => {
        const answer = await fetch(`${apiUrl}/v1/pipelines/${workflowId}`, {
          headers: { authorization: `Bearer ${TOKEN_READ}` },
        });
        final = (await answer.json()) as typeof final;
        return final?.state !== 'running';
      },
      60_000,
    );
    expect(final).toMatchObject({ state: 'completed' });
    expect(final!.result!.generations.map((g) => g.avatars.length)).toEqual([2, 2]);
    const callbackId = `${workflowId}/webhooks`;
    await waitFor(
      'the callback delivery to complete',
      async () =>
        (await env.client.workflow
          .getHandle(callbackId)
          .describe()
          .then((d) => d.status.name)
          .catch(() => 'NOT_FOUND')) === 'COMPLETED',
      30_000,
    );
    expect(receiver.requests.filter((r) => r.url === '/hooks/done')).toHaveLength(1);
    // started, trained, two styles, completed.
    expect(receiver.requests.filter((r) => r.url === '/hooks/endpoint')).toHaveLength(5);
    // The key was in use: the simulator refuses requests without it, and it made the model and orders.
    expect(sim.stats().totals).toMatchObject({ modelsCreated: 1, generationOrdersCreated: 2, uploads: 2 });

    // Every stored history of the run, as the server exports it: the pipeline and every child,
    // grandchildren included (styles, model and order claims, the callback delivery).
    const histories = new Map<string, string>();
    const pending = [workflowId];
    for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
      if (histories.has(id)) continue;
      const text = await showHistory(id);
      histories.set(id, text);
      for (const event of (JSON.parse(text) as HistoryJson).events) {
        const child = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
        if (child) pending.push(child);
      }
    }
    const ids = [...histories.keys()];
    expect(ids).toEqual(expect.arrayContaining([workflowId, callbackId]));
    expect(ids.some((id) => id.startsWith('provider-claim:'))).toBe(true);

    const selfieForms = selfies.flatMap((png) => byteFragments(png));
    // The scan would find a selfie inside a payload (an upload body, as exports print it) at any offset.
    for (const prefix of ['', 'x', 'xy']) {
      const body = JSON.stringify({ image: `data:image/png;base64,${selfies[0]!.toString('base64')}` });
      const exported = Buffer.from(prefix + body).toString('base64');
      expect(selfieForms.some((fragment) => mentions(exported, fragment))).toBe(true);
      const raw = Buffer.concat([Buffer.from(prefix), selfies[0]!]).toString('base64');
      expect(selfieForms.some((fragment) => mentions(raw, fragment))).toBe(true);
    }
    for (const [id, history] of histories) {
      const found = [
        ...Object.entries(SECRETS)
          .filter(([, secret]) => mentions(history, secret))
          .map(([name]) => name),
        ...selfieForms.filter((fragment) => mentions(history, fragment)).map(() => 'selfie bytes'),
      ];
      expect({ workflowId: id, found }).toEqual({ workflowId: id, found: [] });
    }
    // The scan reads inside payloads: what the run did put there, it finds.
    const pipelineHistory = histories.get(workflowId)!;
    expect(mentions(pipelineHistory, subjectId)).toBe(true);
    expect(mentions(pipelineHistory, 'blob:uploads/')).toBe(true);
    expect(mentions(histories.get(callbackId)!, `${receiver.origin}/hooks/done`)).toBe(true);

    // The logs of both processes, once they have stopped and flushed everything.
    for (const running of [worker, api]) running.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(await api.exited).toBe(0);
    const logs = { worker: worker.output(), api: api.output() };
    for (const [name, log] of Object.entries(logs)) {
      const found = Object.entries(SECRETS)
        .filter(([, secret]) => mentions(log, secret))
        .map(([secretName]) => secretName);
      expect({ log: name, found }).toEqual({ log: name, found: [] });
    }
    // They are debug logs of this very run: the worker's name the run and its provider calls, the
    // API's its requests (with their headers, the Authorization header redacted).
    expect(logs.worker).toMatch(/"level":"debug"/);
    expect(logs.worker).toContain(workflowId);
    expect(logs.worker).toContain('provider call');
    expect(logs.api).toContain(`/v1/pipelines/${workflowId}`);
    expect(logs.api).toMatch(/"authorization":"\[redacted\]"/);
  });
});

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { createApiServer } from '../../src/api/server';
import { lazyTemporalClient } from '../../src/api/temporal-client';
import { Webhook } from 'standardwebhooks';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import type { AppConfig } from '../../src/config/load-config';
import { MAX_SELFIES } from '@avatar-pipeline/client/contracts/limits';
import type { WebhookEnvelope } from '@avatar-pipeline/client/contracts/webhook-events';
import { tenantCallbackSecret } from '../../src/callbacks/tenant-secret';
import { SubjectIdAttribute } from '@avatar-pipeline/client/contracts/search-attributes';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { startTestHttpServer, type TestHttpServer } from '../fixtures/http-test-server';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { logSink } from '../helpers/log-sink';
import { testConfig } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, makeScratchDir, uniqueName } from '../helpers/temporal-env';
import { startTestApi } from '../helpers/test-api';

const TOKEN = 'test-token-0123456789';
const SECRET = 'callback-secret-0123456789';
const MAX_FILE_BYTES = 64 * 1024;
const UI_URL = 'http://temporal-ui.test';

interface Json {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('workflow starter API over HTTP (dev server, worker, simulator)', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let worker: PipelineWorkers;
  let workerRun: Promise<void>;
  let app: FastifyInstance;
  let base: string;
  let receiver: TestHttpServer;
  let selfies: { dir: string; files: string[] };
  let blobDir: string;
  let config: AppConfig;
  const logLines: string[] = [];

  beforeAll(async () => {
    env = await createDevServerEnv();
    selfies = await writeSelfies(3, 'api-selfies-');
    blobDir = path.join(await makeScratchDir('api'), 'blobs');
    sim = await startSimulator({
      basePath: uniqueBasePath('api'),
      progression: { mode: 'wall', trainingMs: 1_000, generationMs: 600 },
      failStyles: [19],
    });
    // Deliveries answer 503 once per event, then 200: a delivered callback has been retried.
    const refusedOnce = new Set<string>();
    receiver = await startTestHttpServer((req, res) => {
      const eventId = String(req.headers['webhook-id']);
      if (!refusedOnce.has(eventId)) {
        refusedOnce.add(eventId);
        res.writeHead(503).end();
      } else res.writeHead(204).end();
    });
    const taskQueue = uniqueName('api');
    const callbacks = { signingSecret: SECRET, privateHosts: ['127.0.0.1'] };
    const imageRoots = [blobDir, selfies.dir];
    const base_ = testConfig({
      namespace: env.namespace,
      taskQueue,
      providerUrl: sim.url,
      imageRoots,
      callbacks,
    });
    // Both workers, as deployed: the API sends provider calls to the provider task queue.
    worker = await PipelineWorkers.create({ config: base_, connection: env.nativeConnection });
    workerRun = worker.run();
    config = {
      ...base_,
      temporal: { ...base_.temporal, address: process.env.TEMPORAL_TEST_ADDRESS ?? 'unknown' },
      api: {
        ...base_.api,
        tokens: ['other-token-0123456789', TOKEN],
        blobDir,
        maxFileBytes: MAX_FILE_BYTES,
        temporalUiUrl: UI_URL,
      },
    };
    ({ app, base } = await startTestApi({
      config,
      client: env.client,
      logger: { level: 'info', stream: logSink((line) => logLines.push(line)) },
    }));
  });

  afterAll(async () => {
    await app?.close();
    worker?.shutdown();
    await workerRun;
    await receiver?.close();
    await sim?.stop();
    await env?.teardown();
  });

  async function call(
    method: string,
    url: string,
    options: {
      body?: unknown;
      form?: FormData;
      token?: string | null;
      headers?: Record<string, string>;
    } = {},
  ): Promise<Json> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== null) headers.authorization = `Bearer ${options.token ?? TOKEN}`;
    let body: FormData | string | undefined;
    if (options.form) body = options.form;
    else if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${base}${url}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (HTML docs)
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  async function selfieForm(
    fields: Record<string, string | string[]>,
    files = selfies.files,
  ): Promise<FormData> {
    const form = new FormData();
    for (const file of files) {
      form.append('selfies', new Blob([await readFile(file)], { type: 'image/png' }), path.basename(file));
    }
    for (const [name, value] of Object.entries(fields)) {
      for (const v of Array.isArray(value) ? value : [value]) form.append(name, v);
    }
    return form;
  }

  /** GETs the pipeline until `done` holds for its answer; returns every answer seen. */
  async function watch(
    id: string,
    done: (body: Json['body']) => boolean,
    timeoutMs = 40_000,
  ): Promise<Json['body'][]> {
    const seen: Json['body'][] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await call('GET', `/v1/pipelines/${id}`);
      expect(answer.status).toBe(200);
      seen.push(answer.body);
      if (done(answer.body)) return seen;
      if (Date.now() > deadline) throw new Error(`pipeline ${id} still ${JSON.stringify(answer.body)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** The deliveries of one event type of run `id` the receiver has had (every attempt). */
  async function deliveries(id: string, type: string, count = 1, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = receiver.requests.filter((r) => {
        const event = JSON.parse(r.body) as WebhookEnvelope;
        return event.type === type && event.source === id;
      });
      if (found.length >= count) return found;
      if (Date.now() > deadline)
        throw new Error(`no callback ${type} of ${id} (${found.length} of ${count})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Verifies a delivery as a receiver holding its tenant's callback secret would (Standard Webhooks). */
  const verified = (request: { headers: Record<string, unknown>; body: string }, secret = SECRET) => {
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(request.headers[h])]),
    );
    try {
      new Webhook(tenantCallbackSecret(secret, 'default')).verify(request.body, headers);
      return true;
    } catch {
      return false;
    }
  };

  const blobCount = async () =>
    (await readdir(blobDir, { recursive: true }).catch(() => [] as string[])).filter((f) =>
      f.endsWith('.png'),
    ).length;

  test('multipart start: 202 with links, progress while running, the result, and a signed callback delivered after a retry', async () => {
    const before = await blobCount();
    const form = await selfieForm({
      styles: '3,5',
      gender: '1',
      mainImage: 'selfie-2.png',
      subjectId: 'person-multipart',
      callbackUrl: `${receiver.origin}/hooks/avatars?tenant=t1`,
      polling: JSON.stringify(FAST_POLLING),
    });
    const started = await call('POST', '/v1/pipelines', { form });

    expect(started.status).toBe(202);
    const id: string = started.body.workflowId;
    expect(id).toMatch(/^default\.avatar-pipeline-/);
    expect(started.body).toEqual({
      workflowId: id,
      created: true,
      links: {
        self: `/v1/pipelines/${id}`,
        cancel: `/v1/pipelines/${id}/cancel`,
        temporalUi: `${UI_URL}/namespaces/${env.namespace}/workflows/${id}`,
      },
    });
    expect(started.headers.get('location')).toBe(`/v1/pipelines/${id}`);
    expect(await blobCount()).toBe(before + 3);

    // The workflow got references to the uploads in the blob store, not bytes.
    const history = await env.client.workflow.getHandle(id).fetchHistory();
    const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const input = JSON.parse(Buffer.from(payload!.data!).toString('utf8')) as {
      images: string[];
      mainImageIndex: number;
    };
    expect(input.images).toHaveLength(3);
    for (const image of input.images)
      expect(image).toMatch(/^blob:uploads\/default\.avatar-pipeline-[^/]+\/[^/]+\/selfie-\d\.png$/);
    expect(input.mainImageIndex).toBe(1);
    // Started like the client package starts pipelines: searchable by subject in the Temporal UI.
    const description = await env.client.workflow.getHandle(id).describe();
    expect(description.typedSearchAttributes.get(SubjectIdAttribute)).toBe('person-multipart');

    const seen = await watch(id, (b) => b.state !== 'running');
    const running = seen.filter((b) => b.state === 'running' && b.progress);
    expect(running.length).toBeGreaterThan(0);
    expect(running[0].progress).toMatchObject({
      uploads: { total: 3 },
      styles: [{ styleId: 3 }, { styleId: 5 }],
    });
    const final = seen.at(-1);
    expect(final.state).toBe('completed');
    expect(final.progress.stage).toBe('done');
    expect(final.result).toMatchObject({ workflowId: id, subjectId: 'person-multipart', status: 'DONE' });
    expect(
      final.result.generations.map((g: { styleId: number; avatars: unknown[] }) => [
        g.styleId,
        g.avatars.length,
      ]),
    ).toEqual([
      [3, 8],
      [5, 8],
    ]);
    expect(sim.stats().orders.find((o) => o.id === final.result.modelId)).toMatchObject({ uploads: 3 });

    const [refused, delivered] = await deliveries(id, 'pipeline.completed', 2);
    // One webhook-id across the attempts.
    expect(delivered!.headers['webhook-id']).toBe(refused!.headers['webhook-id']);
    expect(delivered!.url).toBe('/hooks/avatars?tenant=t1');
    expect(delivered!.headers['x-avatar-signature']).toBeUndefined();
    expect(verified(delivered!)).toBe(true);
    expect(verified(delivered!, 'another-secret-123456')).toBe(false);
    expect(verified({ ...delivered!, body: delivered!.body.replace('DONE', 'DOME') })).toBe(false);
    const event = JSON.parse(delivered!.body) as WebhookEnvelope;
    expect(event).toMatchObject({
      type: 'pipeline.completed',
      source: id,
      data: { workflowId: id, subjectId: 'person-multipart' },
    });
    expect(event.type === 'pipeline.completed' && event.data.result).toEqual(final.result);

    const after = await watch(id, (b) => b.callback?.state === 'delivered', 10_000);
    expect(after.at(-1).callback).toEqual({ state: 'delivered' });
  });

  test('JSON start with image references, then cancel: the run ends cancelled and announces it', async () => {
    const started = await call('POST', '/v1/pipelines', {
      body: {
        images: selfies.files,
        styles: [7],
        gender: 2,
        callbackUrl: `${receiver.origin}/hooks/cancelled`,
        polling: FAST_POLLING,
        trainingDeadlineMs: 60_000,
      },
    });
    expect(started.status).toBe(202);
    const id: string = started.body.workflowId;

    const cancel = await call('POST', `/v1/pipelines/${id}/cancel`);
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ workflowId: id, state: 'cancelling' });

    const seen = await watch(id, (b) => b.state !== 'running');
    const final = seen.at(-1);
    expect(final.state).toBe('cancelled');
    expect(final.result).toBeUndefined();
    expect(final.error.message).toBeTruthy();

    const again = await call('POST', `/v1/pipelines/${id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: expect.stringContaining('already ended'), issues: [] });

    const [, delivered] = await deliveries(id, 'pipeline.cancelled', 2);
    expect(JSON.parse(delivered!.body)).toMatchObject({
      type: 'pipeline.cancelled',
      data: { workflowId: id },
    });
    expect(verified(delivered!)).toBe(true);
  });

  test('a failed pipeline: GET reports the failure and the callback announces it', async () => {
    const started = await call('POST', '/v1/pipelines', {
      body: {
        images: selfies.files.slice(0, 1),
        styles: [19],
        gender: 1,
        subjectId: 'person-failing',
        callbackUrl: `${receiver.origin}/hooks/failed`,
        polling: FAST_POLLING,
      },
    });
    expect(started.status).toBe(202);
    const id: string = started.body.workflowId;

    const final = (await watch(id, (b) => b.state !== 'running')).at(-1);
    expect(final.state).toBe('failed');
    expect(final.error).toEqual({
      message: expect.stringContaining('No style succeeded'),
      type: 'NoStyleSucceeded',
    });
    expect(final.result).toBeUndefined();
    expect(final.progress.stage).toBe('failed');

    const [, delivered] = await deliveries(id, 'pipeline.failed', 2);
    const event = JSON.parse(delivered!.body) as WebhookEnvelope;
    expect(event).toMatchObject({
      type: 'pipeline.failed',
      data: { workflowId: id, subjectId: 'person-failing' },
    });
    expect(event.type === 'pipeline.failed' && event.data.error).toEqual(final.error);
    expect(verified(delivered!)).toBe(true);
  });

  test('Idempotency-Key: a repeat answers the same run and starts nothing; a different request with the key is refused', async () => {
    const key = uniqueName('key');
    const request = { images: selfies.files.slice(0, 2), styles: [8], gender: 1, polling: FAST_POLLING };
    const first = await call('POST', '/v1/pipelines', { body: request, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(202);
    expect(first.body.workflowId).toBe(`default.avatar-pipeline-${key}`);
    const runId = (await env.client.workflow.getHandle(first.body.workflowId).describe()).runId;

    const repeat = await call('POST', '/v1/pipelines', {
      body: request,
      headers: { 'idempotency-key': key },
    });
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ workflowId: first.body.workflowId, created: false });

    const different = await call('POST', '/v1/pipelines', {
      body: { ...request, styles: [11] },
      headers: { 'idempotency-key': key },
    });
    expect(different.status).toBe(422);
    expect(different.body.issues).toEqual([
      { path: 'headers.idempotency-key', message: 'was already used for a different request' },
    ]);

    const seen = await watch(first.body.workflowId, (b) => b.state !== 'running');
    expect(seen.at(-1)).toMatchObject({ state: 'completed', runId, result: { status: 'DONE' } });
    // Repeating after the end still answers the same run.
    const late = await call('POST', '/v1/pipelines', { body: request, headers: { 'idempotency-key': key } });
    expect(late.status).toBe(200);
    expect(late.body.workflowId).toBe(first.body.workflowId);

    const runs = [];
    for await (const run of env.client.workflow.list({ query: `WorkflowId = "${first.body.workflowId}"` })) {
      runs.push(run.runId);
    }
    expect(runs).toEqual([runId]);
    expect(sim.stats().orders.filter((o) => o.kind === 'generation' && o.styles?.[0] === 8)).toHaveLength(1);
  });

  test('a repeated multipart upload keeps no second copy of the selfies', async () => {
    const key = uniqueName('upload-key');
    const fields = { styles: '12', gender: '2', polling: JSON.stringify(FAST_POLLING) };
    const first = await call('POST', '/v1/pipelines', {
      form: await selfieForm(fields, selfies.files.slice(0, 1)),
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(202);
    const stored = await blobCount();
    const repeat = await call('POST', '/v1/pipelines', {
      form: await selfieForm(fields, selfies.files.slice(0, 1)),
      headers: { 'idempotency-key': key },
    });
    expect(repeat.status).toBe(200);
    expect(repeat.body.workflowId).toBe(first.body.workflowId);
    expect(await blobCount()).toBe(stored);
    await watch(first.body.workflowId, (b) => b.state !== 'running');
  });

  test('bearer tokens: 401 without one or with a wrong one, in the one error shape; health is public', async () => {
    const missing = await call('GET', '/v1/styles', { token: null });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: expect.stringContaining('bearer token'), issues: [] });
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);

    const wrong = await call('GET', '/v1/styles', { token: `${TOKEN}x` });
    expect(wrong.status).toBe(401);
    const wrongStart = await call('POST', '/v1/pipelines', {
      token: 'nope',
      headers: { 'idempotency-key': 'logged-key-1' },
      body: { images: selfies.files, styles: [3], gender: 1 },
    });
    expect(wrongStart.status).toBe(401);

    const other = await call('GET', '/v1/styles', { token: 'other-token-0123456789' });
    expect(other.status).toBe(200);
    expect(other.body.styles.map((s: { id: number }) => s.id)).toEqual([3, 5, 7, 8, 11, 12, 14, 19]);

    expect((await call('GET', '/healthz', { token: null })).body).toEqual({ status: 'ok' });
    expect(await call('GET', '/readyz', { token: null })).toMatchObject({
      status: 200,
      body: { status: 'ready' },
    });

    const logs = logLines.join('\n');
    expect(logs).toContain('logged-key-1'); // headers are logged...
    expect(logs).not.toContain(TOKEN); // ...but never the credentials
    expect(logs).not.toContain('other-token-0123456789');
  });

  test('validation: 400 for malformed bodies, 422 with field paths for schema errors', async () => {
    const malformed = await call('POST', '/v1/pipelines', { body: '{"images": [' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: expect.any(String), issues: [] });

    const json = await call('POST', '/v1/pipelines', {
      body: { images: [selfies.files[0], '/etc/passwd'], styles: [3, 'x'], gender: 3 },
    });
    expect(json.status).toBe(422);
    expect(json.body.error).toBe('The request is invalid');
    const paths = json.body.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['styles.1', 'gender']));

    const outside = await call('POST', '/v1/pipelines', {
      body: { images: [selfies.files[0], '/etc/hostname'], styles: [3], gender: 1 },
    });
    expect(outside.status).toBe(422);
    expect(outside.body.issues).toEqual([
      { path: 'images.1', message: expect.stringMatching(/IMAGE_ROOTS|exist/) },
    ]);

    const privateCallback = await call('POST', '/v1/pipelines', {
      body: { images: [selfies.files[0]], styles: [3], gender: 1, callbackUrl: 'http://10.1.2.3/hook' },
    });
    expect(privateCallback.status).toBe(422);
    expect(privateCallback.body.issues).toEqual([
      { path: 'callbackUrl', message: expect.stringContaining('private address') },
    ]);

    const before = await blobCount();
    const form = await call('POST', '/v1/pipelines', {
      form: await selfieForm({ styles: '3,abc', gender: '1', mainImage: 'nope.png', colour: 'blue' }),
    });
    expect(form.status).toBe(422);
    expect(form.body.issues).toEqual(
      expect.arrayContaining([
        { path: 'styles.1', message: expect.any(String) },
        { path: 'mainImage', message: expect.stringContaining('file name') },
        { path: 'colour', message: expect.stringContaining('not a field') },
      ]),
    );
    expect(await blobCount()).toBe(before);

    const noSelfies = await call('POST', '/v1/pipelines', {
      form: await selfieForm({ styles: '3', gender: '1' }, []),
    });
    expect(noSelfies.status).toBe(422);
    expect(noSelfies.body.issues).toEqual(
      expect.arrayContaining([{ path: 'selfies', message: expect.stringContaining('at least one') }]),
    );

    const badKey = await call('POST', '/v1/pipelines', {
      body: { images: [selfies.files[0]], styles: [3], gender: 1 },
      headers: { 'idempotency-key': 'has spaces/and slashes' },
    });
    expect(badKey.status).toBe(422);
    expect(badKey.body.issues).toEqual([{ path: 'headers.idempotency-key', message: expect.any(String) }]);

    const text = await call('POST', '/v1/pipelines', {
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.body).toEqual({ error: expect.stringContaining('application/json'), issues: [] });

    const unknown = await call('GET', '/v1/pipelines/avatar-pipeline-does-not-exist');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: expect.stringContaining('No pipeline'), issues: [] });
  });

  test('limits: 413 for a file over the size limit or too many files, 415 for a file that is not an image', async () => {
    const before = await blobCount();
    const png = await readFile(selfies.files[0]!);
    const big = Buffer.concat([png, Buffer.alloc(MAX_FILE_BYTES)]);
    const tooBig = new FormData();
    tooBig.append('selfies', new Blob([png]), 'ok.png');
    tooBig.append('selfies', new Blob([big]), 'big.png');
    tooBig.append('styles', '3');
    tooBig.append('gender', '1');
    const large = await call('POST', '/v1/pipelines', { form: tooBig });
    expect(large.status).toBe(413);
    expect(large.body.issues).toEqual([
      { path: 'selfies.1', message: `is larger than ${MAX_FILE_BYTES} bytes` },
    ]);

    const many = new FormData();
    for (let i = 0; i <= MAX_SELFIES; i++) many.append('selfies', new Blob([png]), `s${i}.png`);
    const tooMany = await call('POST', '/v1/pipelines', { form: many });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.issues).toEqual([
      { path: 'selfies', message: `must be at most ${MAX_SELFIES} files` },
    ]);

    const notImage = new FormData();
    notImage.append('selfies', new Blob([png]), 'ok.png');
    notImage.append('selfies', new Blob(['GIF89a not really']), 'pretend.png');
    notImage.append('styles', '3');
    notImage.append('gender', '1');
    const wrongType = await call('POST', '/v1/pipelines', { form: notImage });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body.issues).toEqual([
      { path: 'selfies.1', message: expect.stringContaining('"pretend.png" is not a JPEG or PNG') },
    ]);

    expect(await blobCount()).toBe(before);
  });

  test('OpenAPI 3 document validates and the docs page is served', async () => {
    const doc = await call('GET', '/openapi.json', { token: null });
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(doc.body))).resolves.toBeTruthy();
    const start = doc.body.paths['/v1/pipelines'].post;
    expect(Object.keys(start.requestBody.content).sort()).toEqual([
      'application/json',
      'multipart/form-data',
    ]);
    expect(start.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(doc.body.paths).sort()).toEqual([
      '/archive/{token}',
      '/healthz',
      '/readyz',
      '/v1/callbacks/secret',
      '/v1/campaigns',
      '/v1/campaigns/{id}',
      '/v1/campaigns/{id}/access-tokens',
      '/v1/campaigns/{id}/cancel',
      '/v1/campaigns/{id}/events',
      '/v1/campaigns/{id}/pause',
      '/v1/campaigns/{id}/results.csv',
      '/v1/campaigns/{id}/results.jsonl',
      '/v1/campaigns/{id}/resume',
      '/v1/campaigns/{id}/retry',
      '/v1/campaigns/{id}/reviews',
      '/v1/campaigns/{id}/summary',
      '/v1/models',
      '/v1/models/{modelId}',
      '/v1/models/{modelId}/generations',
      '/v1/orders',
      '/v1/pipelines',
      '/v1/pipelines/{id}',
      '/v1/pipelines/{id}/access-tokens',
      '/v1/pipelines/{id}/cancel',
      '/v1/pipelines/{id}/events',
      '/v1/pipelines/{id}/retry',
      '/v1/pipelines/{id}/review',
      '/v1/pipelines/{id}/review-links',
      '/v1/pipelines/{id}/styles/{styleId}/avatars.zip',
      '/v1/styles',
      '/v1/subjects/{subjectId}',
      '/v1/usage',
      // No /v1/webhooks routes: this server has no WEBHOOK_SIGNING_KEY (webhook-routes.test.ts has both).
    ]);

    const docs = await fetch(`${base}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    expect(await docs.text()).toMatch(/swagger/i);
  });

  test('readiness is 503 while Temporal cannot be reached', async () => {
    const down = lazyTemporalClient({ ...config.temporal, address: '127.0.0.1:1' });
    const offline = await createApiServer({
      config,
      client: down,
      provider: new ProviderClient(config.provider),
    });
    try {
      const url = await offline.listen({ port: 0, host: '127.0.0.1' });
      const answer = await fetch(`${url}/readyz`);
      expect(answer.status).toBe(503);
      expect(await answer.json()).toEqual({ error: 'not ready', issues: [] });
      const told = await fetch(`${url}/readyz`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(await told.json()).toEqual({ error: expect.stringContaining('not reachable'), issues: [] });
      // Liveness does not depend on Temporal.
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await offline.close();
      await down.connection.close();
    }
  });

  test('refuses to start without tokens', async () => {
    const build = (patch: Partial<AppConfig['api']>) =>
      createApiServer({ config: { ...config, api: { ...config.api, ...patch } }, client: env.client });
    await expect(build({ tokens: [] })).rejects.toThrow(ConfigError);
    await expect(build({ tokens: [] })).rejects.toThrow(/API_TOKENS/);
  });
});

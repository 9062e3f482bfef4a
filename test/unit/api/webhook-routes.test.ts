import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { createApiServer } from '../../../src/api/server';
import { FsBlobStore } from '../../../src/storage';
import { DeliveryLog } from '@avatar-pipeline/client/webhooks/delivery-log';
import { standardWebhookHeaders } from '../../../src/webhooks/standard-signature';
import { endpointKey } from '../../../src/webhooks/endpoint-secret';
import { fsStorage, testConfig } from '../../helpers/pipeline-worker';
import { apiCaller } from '../../helpers/test-api';
import { SAMPLE_EVENT } from '../../helpers/webhook-attempt';

const TOKEN = 'webhook-routes-token-0123456789';
const KEY = 'webhook-server-key-for-tests-0123456789';

describe('/v1/webhooks', () => {
  let app: FastifyInstance;
  let base: string;
  let blobDir: string;
  const started: unknown[] = [];
  const call = apiCaller(() => base, TOKEN);
  /** Objects in the blob store under webhooks/ (what was stored). */
  const stored = async () =>
    (await readdir(path.join(blobDir, 'webhooks'), { recursive: true }).catch(() => [] as string[])).filter(
      (f) => f.endsWith('.json'),
    );

  beforeAll(async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'webhook-routes-'));
    blobDir = path.join(root, 'blobs');
    const config = testConfig({ taskQueue: 'q', providerUrl: 'http://127.0.0.1:1', imageRoots: [root] });
    app = await createApiServer({
      config: {
        ...config,
        api: { ...config.api, tokens: [TOKEN], blobDir },
        storage: fsStorage(blobDir),
        callbacks: { privateHosts: ['127.0.0.1'], webhookKey: KEY },
      },
      // Only redelivery reaches Temporal: it starts a workflow.
      client: {
        workflow: {
          start: (type: string, options: unknown) => Promise.resolve(started.push([type, options])),
        },
      } as unknown as Client,
      provider: { listStyles: () => Promise.resolve([]) } as never,
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
    await rm(path.dirname(blobDir), { recursive: true, force: true });
  });

  test('with WEBHOOK_SIGNING_KEY the webhook routes are documented, none with a 5xx answer', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/v1/webhooks'));
    expect(paths.sort()).toEqual([
      '/v1/webhooks',
      '/v1/webhooks/{id}',
      '/v1/webhooks/{id}/deliveries',
      '/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver',
      '/v1/webhooks/{id}/rotate-secret',
    ]);
    for (const url of paths)
      for (const [method, operation] of Object.entries(doc.paths[url]!)) {
        const statuses = Object.keys(operation.responses).filter((status) => status.startsWith('5'));
        expect({ method, url, statuses }).toEqual({ method, url, statuses: [] });
      }
  });

  test('POST registers an endpoint and answers its whsec_ secret once; GET lists it without; DELETE removes it', async () => {
    const created = await call('POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:9/hooks',
      events: ['pipeline.completed', 'style.*'],
      description: 'my app',
    });
    expect(created.status).toBe(201);
    const endpoint = created.body as { id: string; secret: string };
    expect(endpoint).toMatchObject({
      id: expect.stringMatching(/^ep_[0-9a-f]{24}$/),
      url: 'http://127.0.0.1:9/hooks',
      events: ['pipeline.completed', 'style.*'],
      description: 'my app',
      state: 'enabled',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    // The secret verifies what the worker signs for this endpoint.
    const body = JSON.stringify(SAMPLE_EVENT);
    const message = { id: SAMPLE_EVENT.id, timestamp: Math.floor(Date.now() / 1000), body };
    const headers = standardWebhookHeaders(message, [endpointKey(KEY, 'default', endpoint.id, 1)]);
    expect(() => new Webhook(endpoint.secret).verify(body, headers)).not.toThrow();
    // No secret in the store.
    const files = await stored();
    expect(files).toHaveLength(1);
    const { readFile } = await import('node:fs/promises');
    const record = await readFile(path.join(blobDir, 'webhooks', files[0]!), 'utf8');
    expect(record).not.toContain(endpoint.secret.slice(6));

    const listed = await call('GET', '/v1/webhooks');
    expect(listed.status).toBe(200);
    expect((listed.body as { endpoints: unknown[] }).endpoints).toEqual([
      expect.not.objectContaining({ secret: expect.anything() }),
    ]);
    expect(listed.text).not.toContain(endpoint.secret);

    const removed = await call('DELETE', `/v1/webhooks/${endpoint.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: endpoint.id, removed: true });
    expect((await call('DELETE', `/v1/webhooks/${endpoint.id}`)).status).toBe(404);
    expect(await stored()).toEqual([]);
  });

  test.each([
    [
      'an unknown event name',
      { url: 'http://127.0.0.1:9/h', events: ['pipeline.exploded'] },
      'events.0',
      /not an event/,
    ],
    [
      'a filter that matches nothing',
      { url: 'http://127.0.0.1:9/h', events: ['nothing.*'] },
      'events.0',
      /not an event/,
    ],
    ['an empty filter', { url: 'http://127.0.0.1:9/h', events: [] }, 'events', /at least one event/],
    [
      'a loopback URL not listed in CALLBACK_PRIVATE_HOSTS',
      { url: 'http://127.0.0.2:9/h' },
      'url',
      /private address.*CALLBACK_PRIVATE_HOSTS/,
    ],
    ['a private URL', { url: 'http://10.1.2.3/h' }, 'url', /private address/],
    ['a URL with credentials', { url: 'http://user:pw@127.0.0.1:9/h' }, 'url', /credentials/],
    ['a URL that is not http(s)', { url: 'ftp://example.com/h' }, 'url', /http/],
    ['a missing URL', { events: ['*'] }, 'url', /.+/],
    ['an unknown field', { url: 'http://127.0.0.1:9/h', secret: 'mine' }, '', /secret/],
  ])(
    '%s is refused with 422 naming the field, and nothing is stored',
    async (_name, request, field, message) => {
      const answer = await call('POST', '/v1/webhooks', request);
      expect(answer.status).toBe(422);
      const issues = (answer.body as { issues: { path: string; message: string }[] }).issues;
      expect(issues).toContainEqual({ path: field, message: expect.stringMatching(message) });
      expect(await stored()).toEqual([]);
    },
  );

  test('the delivery log is listed with filters, and a logged delivery can be redelivered', async () => {
    const created = await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hooks' });
    const { id } = created.body as { id: string };
    const log = new DeliveryLog(new FsBlobStore(blobDir), 14);
    const now = Date.now();
    await log.record('default', id, SAMPLE_EVENT, {
      attempt: 1,
      at: new Date(now - 1000).toISOString(),
      statusCode: 500,
      latencyMs: 3,
      response: 'x'.repeat(1024),
      ok: false,
    });
    await log.record('default', id, SAMPLE_EVENT, {
      attempt: 2,
      at: new Date(now).toISOString(),
      statusCode: 204,
      latencyMs: 2,
      response: '',
      ok: true,
    });
    const all = await call('GET', `/v1/webhooks/${id}/deliveries`);
    expect(all.status).toBe(200);
    expect((all.body as { attempts: unknown[] }).attempts).toEqual([
      expect.objectContaining({ attempt: 2, statusCode: 204, ok: true, webhookId: SAMPLE_EVENT.id }),
      expect.objectContaining({
        attempt: 1,
        statusCode: 500,
        ok: false,
        event: 'pipeline.cancelled',
        run: 'wf-1',
      }),
    ]);
    const failed = await call('GET', `/v1/webhooks/${id}/deliveries?failed=true`);
    expect((failed.body as { attempts: unknown[] }).attempts).toHaveLength(1);
    const otherRun = await call('GET', `/v1/webhooks/${id}/deliveries?run=wf-2`);
    expect((otherRun.body as { attempts: unknown[] }).attempts).toHaveLength(0);
    const badEvent = await call('GET', `/v1/webhooks/${id}/deliveries?event=nope`);
    expect(badEvent.status).toBe(422);
    expect(badEvent.text).toContain('querystring.event');

    const again = await call('POST', `/v1/webhooks/${id}/deliveries/${SAMPLE_EVENT.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ deliveryId: SAMPLE_EVENT.id, webhookId: SAMPLE_EVENT.id });
    expect(started.at(-1)).toEqual([
      'webhookRedelivery',
      expect.objectContaining({
        taskQueue: 'q',
        args: [{ tenant: 'default', endpointId: id, deliveryId: SAMPLE_EVENT.id }],
      }),
    ]);
    const unknown = await call(
      'POST',
      `/v1/webhooks/${id}/deliveries/evt_00000000-0000-4000-8000-00000000ffff/redeliver`,
    );
    expect(unknown.status).toBe(404);
    const badId = await call('GET', '/v1/webhooks/not-an-id/deliveries');
    expect(badId.status).toBe(422);
  });

  test('a server without CALLBACK_SIGNING_SECRET answers 404 naming it for the callback secret', async () => {
    const answer = await call('GET', '/v1/callbacks/secret');
    expect(answer.status).toBe(404);
    expect(answer.text).toContain('CALLBACK_SIGNING_SECRET');
  });

  test('a host that cannot be resolved now is registered (every delivery checks the address again)', async () => {
    const answer = await call('POST', '/v1/webhooks', { url: 'https://no-such-host.invalid/hooks' });
    expect(answer.status).toBe(201);
    expect((await call('DELETE', `/v1/webhooks/${(answer.body as { id: string }).id}`)).status).toBe(200);
  });
});

describe('/v1/webhooks without WEBHOOK_SIGNING_KEY', () => {
  test('no webhook route is documented; each answers 404 naming the setting, and nothing is stored', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'webhook-routes-nokey-'));
    const config = testConfig({ taskQueue: 'q', providerUrl: 'http://127.0.0.1:1', imageRoots: [root] });
    const app = await createApiServer({
      config: { ...config, api: { ...config.api, tokens: [TOKEN], blobDir: root }, storage: fsStorage(root) },
      client: {} as Client,
      provider: {} as never,
    });
    try {
      const base = await app.listen({ port: 0, host: '127.0.0.1' });
      const call = apiCaller(() => base, TOKEN);
      const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths).filter((p) => p.startsWith('/v1/webhooks'))).toEqual([]);
      // The callback secret is another setting's (CALLBACK_SIGNING_SECRET): still documented.
      expect(doc.paths['/v1/callbacks/secret']).toBeDefined();
      const id = 'ep_0123456789abcdef01234567';
      for (const [method, url, body] of [
        ['POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/h' }],
        ['GET', '/v1/webhooks'],
        ['GET', `/v1/webhooks/${id}`],
        ['DELETE', `/v1/webhooks/${id}`],
        ['POST', `/v1/webhooks/${id}/rotate-secret`],
        ['GET', `/v1/webhooks/${id}/deliveries`],
        ['POST', `/v1/webhooks/${id}/deliveries/evt_00000000-0000-4000-8000-000000000000/redeliver`],
      ] as const) {
        const answer = await call(method, url, body);
        expect({ method, url, status: answer.status, body: answer.body }).toEqual({
          method,
          url,
          status: 404,
          body: {
            error: 'Webhooks are not configured on this server (WEBHOOK_SIGNING_KEY is not set)',
            issues: [],
          },
        });
      }
      // As on any route: the token first, and a method not served there is 405 with Allow.
      expect((await fetch(`${base}/v1/webhooks`)).status).toBe(401);
      const put = await call('PUT', '/v1/webhooks');
      expect(put.status).toBe(405);
      expect(await readdir(root)).toEqual([]);
    } finally {
      await app.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});

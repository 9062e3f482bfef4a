import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { AccessTokenSigner } from '../../../src/api/access-tokens';
import { createApiServer, DEFAULT_API_LIMITS } from '../../../src/api/server';
import { ROUTE_ACCESS } from '../../../src/api/route-access';
import type { AppConfig } from '../../../src/config/load-config';
import { tenantsFileSchema } from '../../../src/config/tenants';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { fakeTemporalClient, type FakeRun } from '../../helpers/fake-temporal-client';
import { logSink } from '../../helpers/log-sink';
import { fsStorage, testConfig } from '../../helpers/pipeline-worker';
import { temporaryDirectory } from '../../helpers/temp-dir';

const ACME = 'acme-token-0123456789abcdef';
const ACME_2 = 'acme-second-token-0123456789';
const VIEWER = 'viewer-token-0123456789abcd';
const PLAIN = 'plain-token-0123456789abcdef';
const SECRET = 'an-access-token-secret-of-32-characters!';

/** A run held at its review gate, as its progress query answers. */
const REVIEW_PROGRESS = {
  stage: 'awaiting-review',
  uploads: { done: 2, total: 2 },
  training: { polls: 3 },
  styles: [{ styleId: 3, stage: 'done', orderId: 1006 }],
  review: {
    state: 'open',
    onDeadline: 'reject',
    styles: [{ styleId: 3, state: 'awaiting', orderId: 1006, avatars: [], regeneratedOrders: [] }],
  },
};

/** Runs the fake Temporal knows, by id: their workflow type and tenant (AvatarTenant; none: started outside the package), and progress. */
const RUNS: Record<string, FakeRun> = {
  'acme.run-review': { type: WORKFLOW_TYPES.pipeline, tenant: 'acme', progress: REVIEW_PROGRESS },
  'acme.run-x': { type: WORKFLOW_TYPES.pipeline, tenant: 'acme' },
  'acme.run-y': { type: WORKFLOW_TYPES.pipeline, tenant: 'acme' },
  'acme.camp-1': { type: WORKFLOW_TYPES.campaign, tenant: 'acme' },
  'acme.camp-2': { type: WORKFLOW_TYPES.campaign, tenant: 'acme' },
  'viewer.run-v': { type: WORKFLOW_TYPES.pipeline, tenant: 'viewer' },
  'default.run-p': { type: WORKFLOW_TYPES.pipeline, tenant: 'default' },
  'acme.run-loose': { type: WORKFLOW_TYPES.pipeline },
};

/** Just enough of a Temporal client for status, events, cancel and access-token routes on running runs. */
function fakeTemporal(): Client {
  return fakeTemporalClient(RUNS, {
    cancel: async () => undefined,
    // The review update, as a gate that takes every decision.
    executeUpdate: async (_update: unknown, options: { args: [{ decisions: unknown[] }] }) => ({
      results: options.args[0].decisions.map((_, index) => ({ index, effect: 'applied' })),
      review: REVIEW_PROGRESS.review,
    }),
  });
}

async function apiConfig(): Promise<AppConfig> {
  const root = temporaryDirectory('tenant-access-');
  const base = testConfig({ taskQueue: 'q', providerUrl: 'http://127.0.0.1:1', imageRoots: [root] });
  return {
    ...base,
    api: {
      ...base.api,
      tokens: [`acme:${ACME}`, `acme:${ACME_2}`, `viewer:${VIEWER}`, PLAIN],
      blobDir: path.join(root, 'blobs'),
      accessTokenSecret: SECRET,
    },
    storage: fsStorage(path.join(root, 'blobs')),
    // Every route of ROUTE_ACCESS served: the /v1/webhooks routes are a server's with WEBHOOK_SIGNING_KEY.
    callbacks: { ...base.callbacks, webhookKey: 'tenant-access-webhook-key-0123456789abcdef' },
    tenants: tenantsFileSchema.parse({
      tenants: { acme: { requestsPerMinute: 400 }, viewer: { scopes: ['read'] } },
    }).tenants,
  };
}

describe('tenants, scopes, browser access tokens and audit at the API', () => {
  let app: FastifyInstance;
  let base: string;
  let logged = '';

  beforeAll(async () => {
    app = await createApiServer({
      config: await apiConfig(),
      client: fakeTemporal(),
      provider: { listStyles: async () => [] } as never,
      logger: { level: 'warn', stream: logSink((text) => (logged += text)) },
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
  });

  const call = async (method: string, url: string, token?: string, body?: unknown) => {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
    };
  };
  const grant = async (kind: 'pipelines' | 'campaigns', id: string, body?: unknown) => {
    const answer = await call('POST', `/v1/${kind}/${id}/access-tokens`, ACME, body);
    expect(answer.status).toBe(201);
    return answer.body as { token: string; expiresAt: string };
  };

  describe('scopes', () => {
    test('a token without the route\u2019s scope is answered 403 naming the scope', async () => {
      const start = await call('POST', '/v1/pipelines', VIEWER, {
        images: ['/a.png'],
        styles: [1],
        gender: 1,
      });
      expect(start.status).toBe(403);
      expect(start.body?.error).toMatch(/lacks the "start" scope/);
      const erase = await call('DELETE', '/v1/subjects/u-1', VIEWER);
      expect(erase.status).toBe(403);
      expect(erase.body?.error).toMatch(/lacks the "erase" scope/);
      const cancel = await call('POST', '/v1/pipelines/viewer.run-v/cancel', VIEWER);
      expect(cancel.status).toBe(403);
      expect(cancel.body?.error).toMatch(/lacks the "cancel" scope/);
      expect((await call('GET', '/v1/pipelines/viewer.run-v', VIEWER)).status).toBe(200);
      const review = await call('POST', '/v1/pipelines/viewer.run-v/review', VIEWER, {
        decisions: [{ styleId: 3, decision: 'approve' }],
      });
      expect(review.status).toBe(403);
      expect(review.body?.error).toMatch(/lacks the "review" scope/);
    });

    test('a browser access token cannot decide on the run it opens: the answer for an unknown run', async () => {
      const { token } = await grant('pipelines', 'acme.run-x');
      const review = await call('POST', '/v1/pipelines/acme.run-x/review', token, {
        decisions: [{ styleId: 3, decision: 'approve' }],
      });
      expect(review).toEqual({ status: 404, body: { error: 'No pipeline acme.run-x', issues: [] } });
    });

    test('a review link decides on its own run only, is audited as the link, and stops when it expires', async () => {
      logged = '';
      const minted = await call('POST', '/v1/pipelines/acme.run-review/review-links', ACME, {});
      expect(minted.status).toBe(201);
      const link = minted.body as { url: string; token: string; expiresAt: string; reviewer: string };
      expect(link.url).toBe(
        `${base}/console/#/review/acme.run-review?access_token=${encodeURIComponent(link.token)}`,
      );
      expect(link.reviewer).toMatch(/^link:[0-9a-f]{64}$/);
      const ttl = Date.parse(link.expiresAt) - Date.now();
      expect(ttl).toBeGreaterThan(72 * 3600_000 - 5_000);
      expect(ttl).toBeLessThanOrEqual(72 * 3600_000);
      const decisions = { decisions: [{ styleId: 3, decision: 'approve' }] };
      const decided = await call('POST', '/v1/pipelines/acme.run-review/review', link.token, decisions);
      expect(decided.status).toBe(200);
      expect(decided.body).toMatchObject({ reviewer: link.reviewer, decided: ['approve style 3'] });
      const audit = logged
        .split('\n')
        .filter((line) => line.includes('"audit":true'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(audit.map((line) => line.action)).toEqual(['pipeline.review-link', 'pipeline.review']);
      expect(audit[0]).toMatchObject({
        tenant: 'acme',
        workflowId: 'acme.run-review',
        reviewer: link.reviewer,
      });
      expect(audit[1]).toMatchObject({ reviewer: link.reviewer, decisions: ['approve style 3'] });
      expect(logged).not.toContain(link.token);
      // It reads its run, and nothing else: another run, another route, control.
      expect((await call('GET', '/v1/pipelines/acme.run-review', link.token)).status).toBe(200);
      for (const [method, url] of [
        ['POST', '/v1/pipelines/acme.run-x/review'],
        ['GET', '/v1/pipelines/acme.run-x'],
        ['POST', '/v1/pipelines/acme.run-review/cancel'],
        ['POST', '/v1/pipelines/acme.run-review/review-links'],
      ] as const) {
        const answer = await call(method, url, link.token, method === 'POST' ? decisions : undefined);
        expect({ url, status: answer.status }).toEqual({ url, status: 404 });
      }
      const expired = new AccessTokenSigner(SECRET).mint({
        tenant: 'acme',
        kind: 'pipeline',
        runId: 'acme.run-review',
        expiresAtMs: Date.now() - 1000,
        review: true,
      }).token;
      expect(await call('POST', '/v1/pipelines/acme.run-review/review', expired, decisions)).toEqual({
        status: 404,
        body: { error: 'No pipeline acme.run-review', issues: [] },
      });
    });

    test('a campaign batch review: the review scope, a malformed batch 422, a run not of the campaign refused by name', async () => {
      const body = { reviews: [{ workflowId: 'acme.run-review', decision: 'approve' }] };
      expect((await call('POST', '/v1/campaigns/acme.camp-1/reviews', VIEWER, body)).status).toBe(403);
      const malformed = await call('POST', '/v1/campaigns/acme.camp-1/reviews', ACME, { reviews: [] });
      expect(malformed.status).toBe(422);
      expect(JSON.stringify(malformed.body)).toContain('reviews');
      const answer = await call('POST', '/v1/campaigns/acme.camp-1/reviews', ACME, body);
      expect(answer).toMatchObject({
        status: 200,
        body: {
          campaignId: 'acme.camp-1',
          decided: 0,
          unchanged: 0,
          refused: 1,
          results: [
            {
              workflowId: 'acme.run-review',
              effect: 'refused',
              issues: [{ path: 'reviews.0.workflowId', message: 'is not a run of campaign acme.camp-1' }],
            },
          ],
        },
      });
      expect((await call('POST', '/v1/campaigns/acme.camp-none/reviews', ACME, body)).status).toBe(404);
    });

    test('review links are minted only with the review scope, for a run under review', async () => {
      const viewerLink = await call('POST', '/v1/pipelines/viewer.run-v/review-links', VIEWER);
      expect(viewerLink.status).toBe(403);
      const unreviewed = await call('POST', '/v1/pipelines/acme.run-x/review-links', ACME);
      expect(unreviewed).toEqual({
        status: 409,
        body: { error: 'Pipeline acme.run-x was not started with review', issues: [] },
      });
      const unknown = await call('POST', '/v1/pipelines/acme.run-none/review-links', ACME);
      expect(unknown.status).toBe(404);
      const tooLong = await call('POST', '/v1/pipelines/acme.run-review/review-links', ACME, {
        ttlSeconds: 7 * 86_400 + 1,
      });
      expect(tooLong.status).toBe(422);
      expect(JSON.stringify(tooLong.body)).toContain('ttlSeconds');
    });

    test('tenant and bare tokens hold every scope when the file says nothing of them', async () => {
      expect((await call('POST', '/v1/pipelines/default.run-p/cancel', PLAIN)).status).toBe(202);
      expect((await call('POST', '/v1/pipelines/acme.run-y/cancel', ACME)).status).toBe(202);
    });

    test('every /v1 route has its entry in the one table; the OpenAPI document names scopes and the 403', async () => {
      const doc = (await call('GET', '/openapi.json')).body as {
        paths: Record<
          string,
          Record<string, { description?: string; responses: object; security?: unknown }>
        >;
        components: { securitySchemes: Record<string, unknown> };
      };
      const documented = Object.entries(doc.paths)
        .filter(([p]) => p.startsWith('/v1/'))
        .flatMap(([p, methods]) =>
          Object.keys(methods).map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`),
        );
      expect(documented.sort()).toEqual(Object.keys(ROUTE_ACCESS).sort());
      for (const [p, methods] of Object.entries(doc.paths).filter(([p]) => p.startsWith('/v1/'))) {
        for (const operation of Object.values(methods)) {
          expect(operation.description).toMatch(/Scope: `(start|read|cancel|erase|review)`/);
          expect(Object.keys(operation.responses)).toContain('403');
        }
        void p;
      }
      expect(doc.components.securitySchemes.accessToken).toMatchObject({ in: 'query', name: 'access_token' });
      expect(doc.paths['/v1/pipelines/{id}']!.get!.security).toEqual([
        { bearerAuth: [] },
        { accessToken: [] },
      ]);
    });
  });

  describe('browser access tokens', () => {
    test('are granted 201 with an expiry, 1 hour by default, and hold no API token', async () => {
      const before = Date.now();
      const { token, expiresAt } = await grant('pipelines', 'acme.run-x');
      const after = Date.now();
      // An hour from some moment of the request (in whole seconds), however long it took.
      expect(Date.parse(expiresAt)).toBeGreaterThan(before + 3598_000);
      expect(Date.parse(expiresAt)).toBeLessThanOrEqual(after + 3600_000);
      const payload = Buffer.from(token.split('.')[1]!, 'base64url').toString();
      expect(payload).not.toContain(ACME);
      expect(payload).not.toContain('acme.run-x');
      expect(JSON.parse(payload)).toMatchObject({ t: 'acme', k: 'pipeline' });
    });

    test.each([
      [{ ttlSeconds: 0 }, 'ttlSeconds'],
      [{ ttlSeconds: 86_401 }, 'ttlSeconds'],
      [{ ttlSeconds: 'long' }, 'ttlSeconds'],
      [{ ttlSeconds: 1.5 }, 'ttlSeconds'],
      [{ scope: 'write' }, ''],
    ])('refuse the body %j with 422 naming the field', async (body, field) => {
      const answer = await call('POST', '/v1/pipelines/acme.run-x/access-tokens', ACME, body);
      expect(answer.status).toBe(422);
      expect(JSON.stringify(answer.body)).toContain(field);
    });

    test('are granted only for a run that exists, with the read scope', async () => {
      const unknown = await call('POST', '/v1/pipelines/acme.run-none/access-tokens', ACME);
      expect(unknown).toEqual({ status: 404, body: { error: 'No pipeline acme.run-none', issues: [] } });
      const campaign = await call('POST', '/v1/campaigns/acme.run-x/access-tokens', ACME);
      expect(campaign).toEqual({ status: 404, body: { error: 'No campaign acme.run-x', issues: [] } });
      expect((await call('POST', '/v1/pipelines/viewer.run-v/access-tokens', VIEWER)).status).toBe(201);
      // Another tenant's run, and a run of no tenant, are unknown to the caller.
      expect(await call('POST', '/v1/pipelines/viewer.run-v/access-tokens', ACME)).toEqual({
        status: 404,
        body: { error: 'No pipeline viewer.run-v', issues: [] },
      });
      expect(await call('POST', '/v1/pipelines/acme.run-loose/access-tokens', ACME)).toEqual({
        status: 404,
        body: { error: 'No pipeline acme.run-loose', issues: [] },
      });
      expect((await call('POST', '/v1/pipelines/acme.run-x/access-tokens')).status).toBe(401);
    });

    test('open their run\u2019s status and events, as bearer or ?access_token=', async () => {
      const { token } = await grant('pipelines', 'acme.run-x');
      const asBearer = await call('GET', '/v1/pipelines/acme.run-x', token);
      expect(asBearer.status).toBe(200);
      expect(asBearer.body?.workflowId).toBe('acme.run-x');
      const asQuery = await call('GET', `/v1/pipelines/acme.run-x?access_token=${encodeURIComponent(token)}`);
      expect(asQuery.status).toBe(200);
      // The stream's end, which the route answers 204 once the run is known.
      const events = await fetch(`${base}/v1/pipelines/acme.run-x/events?access_token=${token}`, {
        headers: { 'last-event-id': 'end' },
      });
      expect(events.status).toBe(204);
      const campaignToken = (await grant('campaigns', 'acme.camp-1')).token;
      expect((await call('GET', `/v1/campaigns/acme.camp-1?access_token=${campaignToken}`)).status).toBe(200);
    });

    test('get exactly an unknown id\u2019s answer on another run, of either kind', async () => {
      const { token } = await grant('pipelines', 'acme.run-x');
      const other = await call('GET', `/v1/pipelines/acme.run-y?access_token=${token}`);
      const unknownWithApiToken = await call('GET', '/v1/pipelines/acme.run-none', ACME);
      expect(other).toEqual({ status: 404, body: { error: 'No pipeline acme.run-y', issues: [] } });
      expect(unknownWithApiToken).toEqual({
        status: 404,
        body: { error: 'No pipeline acme.run-none', issues: [] },
      });
      expect(await call('GET', '/v1/pipelines/acme.run-y/events', token)).toEqual(other);
      expect(await call('GET', '/v1/campaigns/acme.run-x', token)).toEqual({
        status: 404,
        body: { error: 'No campaign acme.run-x', issues: [] },
      });
    });

    test('for a campaign (its share link) read its progress and results, and no other campaign, no run, no control', async () => {
      const { token } = await grant('campaigns', 'acme.camp-1');
      const own = '/v1/campaigns/acme.camp-1';
      expect((await call('GET', own, token)).status).toBe(200);
      const csv = await fetch(`${base}${own}/results.csv?access_token=${token}`);
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      await csv.body?.cancel();
      // This fake Temporal cannot answer the ledger the rows come from; the token was let through all the same.
      const jsonl = await call('GET', `${own}/results.jsonl?access_token=${token}`);
      expect(jsonl.body?.error).not.toBe('No campaign acme.camp-1');
      const otherCampaign = { status: 404, body: { error: 'No campaign acme.camp-2', issues: [] } };
      for (const url of [
        '/v1/campaigns/acme.camp-2',
        '/v1/campaigns/acme.camp-2/events',
        '/v1/campaigns/acme.camp-2/results.csv',
        '/v1/campaigns/acme.camp-2/results.jsonl',
      ])
        expect({ url, ...(await call('GET', url, token)) }).toEqual({ url, ...otherCampaign });
      // Its own campaign's controls answer as an unknown campaign's: the token reads, nothing more.
      for (const action of ['pause', 'resume', 'cancel', 'retry', 'access-tokens'])
        expect(await call('POST', `${own}/${action}`, token)).toEqual({
          status: 404,
          body: { error: 'No campaign acme.camp-1', issues: [] },
        });
      // A run, even one named like the campaign, is unknown to it; so is every list.
      expect(await call('GET', '/v1/pipelines/acme.run-x', token)).toEqual({
        status: 404,
        body: { error: 'No pipeline acme.run-x', issues: [] },
      });
      expect((await call('GET', '/v1/pipelines/acme.camp-1', token)).status).toBe(404);
      expect((await call('GET', '/v1/campaigns', token)).body).toEqual({
        error: 'No route GET /v1/campaigns',
        issues: [],
      });
    });

    test('get the answer for something that does not exist on every other route', async () => {
      const { token } = await grant('pipelines', 'acme.run-x');
      const bogus = await call('GET', '/v1/pipelines', 'at1.bogus.token');
      expect(bogus.status).toBe(401);
      const noSuchRun = await call('GET', '/v1/pipelines/acme.run-none', ACME);
      const onRunRoutes = { status: 404, body: { error: 'No pipeline acme.run-x', issues: [] } };
      for (const [method, url] of [
        ['POST', '/v1/pipelines/acme.run-x/cancel'],
        ['POST', '/v1/pipelines/acme.run-x/access-tokens'],
      ] as const) {
        expect({ url, ...(await call(method, url, token)) }).toEqual({ url, ...onRunRoutes });
        expect(noSuchRun.body).toEqual({ error: 'No pipeline acme.run-none', issues: [] });
      }
      for (const [method, url] of [
        ['GET', '/v1/pipelines'],
        ['GET', '/v1/styles'],
        ['DELETE', '/v1/subjects/u-1'],
        ['GET', '/v1/models'],
      ] as const) {
        const noRoute = { status: 404, body: { error: `No route ${method} ${url}`, issues: [] } };
        expect({ url, ...(await call(method, url, token)) }).toEqual({ url, ...noRoute });
        expect({ url, ...(await call(method, `${url}?access_token=${token}`)) }).toEqual({ url, ...noRoute });
      }
      // An API token is never taken from the query (it would land in logs and browser histories).
      expect((await call('GET', `/v1/pipelines/acme.run-x?access_token=${ACME}`)).status).toBe(401);
    });

    test('stop working when they expire, or when signed with another key', async () => {
      const signer = new AccessTokenSigner(SECRET);
      const grantOf = (expiresAtMs: number) =>
        signer.mint({ tenant: 'acme', kind: 'pipeline', runId: 'acme.run-x', expiresAtMs }).token;
      const expired = grantOf(Date.now() - 1000);
      expect(await call('GET', `/v1/pipelines/acme.run-x?access_token=${expired}`)).toEqual({
        status: 404,
        body: { error: 'No pipeline acme.run-x', issues: [] },
      });
      const live = grantOf(Date.now() + 60_000);
      expect((await call('GET', `/v1/pipelines/acme.run-x?access_token=${live}`)).status).toBe(200);
      const forged = new AccessTokenSigner('another-secret-of-at-least-32-chars!!').mint({
        tenant: 'acme',
        kind: 'pipeline',
        runId: 'acme.run-x',
        expiresAtMs: Date.now() + 60_000,
      }).token;
      expect((await call('GET', `/v1/pipelines/acme.run-x?access_token=${forged}`)).status).toBe(401);
      // A payload edited to another run breaks the signature.
      const [prefix, , mac] = live.split('.');
      const otherPayload = Buffer.from(
        JSON.stringify({
          ...JSON.parse(Buffer.from(live.split('.')[1]!, 'base64url').toString()),
          t: 'viewer',
        }),
      ).toString('base64url');
      expect(
        (await call('GET', `/v1/pipelines/acme.run-x?access_token=${prefix}.${otherPayload}.${mac}`)).status,
      ).toBe(401);
    });
  });

  describe('rate limits', () => {
    test('a tenant with requestsPerMinute shares one budget across its tokens', async () => {
      const limited = await createApiServer({
        config: {
          ...(await apiConfig()),
          tenants: tenantsFileSchema.parse({ tenants: { acme: { requestsPerMinute: 3 } } }).tenants,
        },
        client: fakeTemporal(),
        provider: { listStyles: async () => [] } as never,
      });
      try {
        const url = await limited.listen({ port: 0, host: '127.0.0.1' });
        const get = (token: string, run = 'acme.run-x') =>
          fetch(`${url}/v1/pipelines/${run}`, { headers: { authorization: `Bearer ${token}` } });
        for (const token of [ACME, ACME_2, ACME]) expect((await get(token)).status).toBe(200);
        const refused = await get(ACME_2);
        expect(refused.status).toBe(429);
        expect(await refused.text()).toMatch(/at most 3 a minute for all of this tenant's tokens together/);
        // Another tenant's token keeps its own budget.
        expect((await get(PLAIN, 'default.run-p')).status).toBe(200);
      } finally {
        await limited.close();
      }
    });
  });

  // Trust III, L3: requests with minted access tokens were counted apart from the tenant's budget.
  describe('rate limits for minted access tokens', () => {
    const mint = (tenant: string, runId: string) =>
      new AccessTokenSigner(SECRET).mint({
        tenant,
        kind: 'pipeline',
        runId,
        expiresAtMs: Date.now() + 3_600_000,
      }).token;
    const limitedServer = async (rateLimitPerMinute: number) => {
      const config = await apiConfig();
      return createApiServer({
        config: {
          ...config,
          api: { ...config.api, limits: { ...DEFAULT_API_LIMITS, rateLimitPerMinute } },
          tenants: tenantsFileSchema.parse({ tenants: { acme: { requestsPerMinute: 3 } } }).tenants,
        },
        client: fakeTemporal(),
        provider: { listStyles: async () => [] } as never,
      });
    };

    test("count against the tenant's requestsPerMinute, with its API tokens", async () => {
      const limited = await limitedServer(600);
      try {
        const url = await limited.listen({ port: 0, host: '127.0.0.1' });
        const get = (token: string) =>
          fetch(`${url}/v1/pipelines/acme.run-x`, { headers: { authorization: `Bearer ${token}` } });
        for (const token of [ACME, ACME_2, mint('acme', 'acme.run-x')])
          expect((await get(token)).status).toBe(200);
        const viaQuery = await fetch(
          `${url}/v1/pipelines/acme.run-x?access_token=${mint('acme', 'acme.run-x')}`,
        );
        expect(viaQuery.status).toBe(429);
        expect(await viaQuery.text()).toMatch(/at most 3 a minute for all of this tenant's tokens together/);
        expect((await get(ACME)).status).toBe(429);
      } finally {
        await limited.close();
      }
    });

    test('share one budget per tenant where it sets no requestsPerMinute, however many are minted', async () => {
      const limited = await limitedServer(2);
      try {
        const url = await limited.listen({ port: 0, host: '127.0.0.1' });
        const get = (token: string) => fetch(`${url}/v1/pipelines/default.run-p?access_token=${token}`);
        expect((await get(mint('default', 'default.run-p'))).status).toBe(200);
        expect((await get(mint('default', 'default.run-p'))).status).toBe(200);
        const refused = await get(mint('default', 'default.run-p'));
        expect(refused.status).toBe(429);
        expect(await refused.text()).toMatch(
          /at most 2 a minute for all of this tenant's access tokens together/,
        );
      } finally {
        await limited.close();
      }
    });
  });

  describe('audit', () => {
    test('grants and cancels are logged as JSON lines with the tenant and ids, never the token', async () => {
      logged = '';
      const { token } = await grant('pipelines', 'acme.run-x');
      await call('POST', '/v1/pipelines/acme.run-y/cancel', ACME);
      await call('GET', `/v1/pipelines/acme.run-x?access_token=${token}`);
      const lines = logged
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const audit = lines.filter((line) => line.audit === true);
      expect(audit).toEqual([
        expect.objectContaining({
          tenant: 'acme',
          action: 'pipeline.access-token',
          workflowId: 'acme.run-x',
          expiresAt: expect.any(String),
        }),
        expect.objectContaining({ tenant: 'acme', action: 'pipeline.cancel', workflowId: 'acme.run-y' }),
      ]);
      expect(logged).not.toContain(token);
      expect(logged).not.toContain(ACME);
    });

    test('request logs show ?access_token= redacted', async () => {
      const verbose = await createApiServer({
        config: await apiConfig(),
        client: fakeTemporal(),
        provider: { listStyles: async () => [] } as never,
        logger: {
          level: 'info',
          stream: logSink((text) => (logged += text)),
        },
      });
      try {
        logged = '';
        const url = await verbose.listen({ port: 0, host: '127.0.0.1' });
        const token = (await (
          await fetch(`${url}/v1/pipelines/acme.run-x/access-tokens`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ACME}` },
          })
        ).json()) as { token: string };
        await fetch(`${url}/v1/pipelines/acme.run-x?access_token=${token.token}`);
        await fetch(`${url}/v1/pipelines/acme.run-y?x=1&access_token=${token.token}`);
        expect(logged).toContain('/v1/pipelines/acme.run-x?access_token=[redacted]');
        expect(logged).toContain('/v1/pipelines/acme.run-y?x=1&access_token=[redacted]');
        expect(logged).not.toContain(token.token);
        expect(logged).not.toContain(token.token.split('.')[2]!);
      } finally {
        await verbose.close();
      }
    });
  });
});

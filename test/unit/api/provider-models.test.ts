import type { FastifyInstance } from 'fastify';
import { createApiServer } from '../../../src/api/server';
import { lazyTemporalClient } from '../../../src/api/temporal-client';
import { ModelNotFoundError, ProviderCatalog } from '@avatar-pipeline/client/client/provider-catalog';
import type * as TenantRuns from '@avatar-pipeline/client/client/tenant-runs';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { testConfig } from '../../helpers/pipeline-worker';
import { temporaryDirectory } from '../../helpers/temp-dir';
import { createModelWithSelfie, finishedGeneration, trainedModel } from '../simulator/support/scenario';

const TOKEN = 'models-token-0123456789';

/**
 * The models the caller's runs trained: the API reads them from Temporal's visibility store
 * (tenantModelIds), which this test has none of, so it names them itself.
 */
const mockOwnModels = new Set<number>();
jest.mock('@avatar-pipeline/client/client/tenant-runs', () => ({
  ...jest.requireActual<typeof TenantRuns>('@avatar-pipeline/client/client/tenant-runs'),
  tenantModelIds: () => Promise.resolve(mockOwnModels),
}));

describe('provider read surfaces: catalog and GET /v1/models, /v1/models/{id}, /v1/orders', () => {
  let sim: RunningSimulator;
  let app: FastifyInstance;
  let catalog: ProviderCatalog;
  let trained: number;
  let untrained: number;
  let generation: number;
  let base: string;
  /** The API's upload janitor owns its blob directory: a scratch one, never the checkout. */
  let blobRoot: string;

  beforeAll(async () => {
    blobRoot = temporaryDirectory('provider-models-');
    sim = await startSimulator({ progression: { mode: 'calls', trainingCalls: 2, generationCalls: 1 } });
    trained = await trainedModel(sim);
    untrained = await createModelWithSelfie(sim, 2);
    generation = await finishedGeneration(sim, trained, [3]);
    mockOwnModels.add(trained).add(untrained);
    const provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 5_000 });
    catalog = new ProviderCatalog(provider);
    const settings = testConfig({ taskQueue: 'unused', providerUrl: sim.url, imageRoots: [blobRoot] });
    const config = { ...settings, api: { ...settings.api, tokens: [TOKEN] } };
    // Nothing here touches Temporal: the lazy client never connects.
    app = await createApiServer({ config, client: lazyTemporalClient(config.temporal), provider });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await app?.close();
    await sim?.stop();
  });

  async function get(url: string, token: string | null = TOKEN, at = base) {
    const response = await fetch(`${at}${url}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    const body = await response.text();
    return { statusCode: response.status, body, json: () => JSON.parse(body) };
  }

  it('lists models newest first with their status, and orders with their model', async () => {
    const models = await catalog.listModels();
    expect(models.map((m) => m.modelId)).toEqual([untrained, trained]);
    expect(models.find((m) => m.modelId === trained)).toMatchObject({ status: 'DONE', gender: 1 });
    expect(models.find((m) => m.modelId === untrained)).toMatchObject({ status: 'CREATED', gender: 2 });

    const orders = await catalog.listOrders();
    expect(orders.map((o) => [o.orderId, o.modelId])).toEqual([
      [generation, trained],
      [untrained, 0],
      [trained, 0],
    ]);
  });

  it('reads one model with its generation orders, and refuses ids that are not models', async () => {
    const detail = await catalog.getModel(trained);
    expect(detail).toMatchObject({ modelId: trained, status: 'DONE' });
    expect(detail.orders).toEqual([
      expect.objectContaining({ orderId: generation, modelId: trained, styles: [3] }),
    ]);

    await expect(catalog.getModel(generation)).rejects.toThrow(
      `order ${generation} is a generation order under model ${trained}, not a model`,
    );
    const unknown = await catalog.getModel(9999).catch((err: unknown) => err);
    expect(unknown).toBeInstanceOf(ModelNotFoundError);
    expect((unknown as ModelNotFoundError).issues).toEqual([
      { path: 'modelId', message: 'the provider has no model 9999' },
    ]);
  });

  it('answers the same over HTTP', async () => {
    const models = await get('/v1/models');
    expect(models.statusCode).toBe(200);
    expect(models.json().models.map((m: { modelId: number }) => m.modelId)).toEqual([untrained, trained]);

    const one = await get(`/v1/models/${trained}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({
      modelId: trained,
      status: 'DONE',
      orders: [{ orderId: generation, modelId: trained, status: 'DONE' }],
    });

    const under = await get(`/v1/orders?modelId=${trained}`);
    expect(under.statusCode).toBe(200);
    expect(under.json().orders.map((o: { orderId: number }) => o.orderId)).toEqual([generation]);
    const all = await get('/v1/orders');
    expect(all.json().orders).toHaveLength(3);
  });

  it('answers 404 naming the field for ids that are not models, 422 for malformed ids, 401 without a token', async () => {
    const notModel = await get(`/v1/models/${generation}`);
    expect(notModel.statusCode).toBe(404);
    expect(notModel.json().issues).toEqual([
      {
        path: 'params.modelId',
        message: `order ${generation} is a generation order under model ${trained}, not a model`,
      },
    ]);
    const unknownUnder = await get('/v1/orders?modelId=9999');
    expect(unknownUnder.statusCode).toBe(404);
    expect(unknownUnder.json().issues[0].path).toBe('querystring.modelId');

    const malformed = await get('/v1/models/abc');
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().issues[0].path).toBe('params.modelId');

    expect((await get('/v1/models', null)).statusCode).toBe(401);
  });

  it('shows a tenant only the models its runs trained: any other is answered as an unknown id', async () => {
    mockOwnModels.delete(untrained);
    try {
      const models = await get('/v1/models');
      expect(models.json().models.map((m: { modelId: number }) => m.modelId)).toEqual([trained]);
      const other = await get(`/v1/models/${untrained}`);
      const unknown = await get('/v1/models/9999');
      expect(other.statusCode).toBe(404);
      expect(other.body.split(String(untrained)).join('<id>')).toBe(unknown.body.split('9999').join('<id>'));
      expect((await get('/v1/orders')).json().orders.map((o: { orderId: number }) => o.orderId)).toEqual([
        generation,
        trained,
      ]);
    } finally {
      mockOwnModels.add(untrained);
    }
    expect((await get('/v1/orders', 'wrong-token')).statusCode).toBe(401);
  });

  it('answers 502 when the provider refuses the key, without echoing it', async () => {
    const settings = testConfig({ taskQueue: 'unused', providerUrl: sim.url, imageRoots: [blobRoot] });
    const config = { ...settings, api: { ...settings.api, tokens: [TOKEN] } };
    const wrongKey = 'wrong-provider-key-4242';
    const broken = await createApiServer({
      config,
      client: lazyTemporalClient(config.temporal),
      provider: new ProviderClient({ baseUrl: sim.url, apiKey: wrongKey, timeoutMs: 5_000 }),
    });
    try {
      const answer = await get('/v1/models', TOKEN, await broken.listen({ port: 0, host: '127.0.0.1' }));
      expect(answer.statusCode).toBe(502);
      expect(answer.body).not.toContain(wrongKey);
    } finally {
      await broken.close();
    }
  });

  it('documents every route with its errors in the OpenAPI document', async () => {
    const doc = (await get('/openapi.json', null)).json();
    // 429: the per-token rate limit; 403: a token without the route's scope; 400: a path that is not
    // valid percent-encoded UTF-8.
    expect(Object.keys(doc.paths['/v1/models'].get.responses).sort()).toEqual([
      '200',
      '401',
      '403',
      '429',
      '502',
    ]);
    expect(Object.keys(doc.paths['/v1/models/{modelId}'].get.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '422',
      '429',
      '502',
    ]);
    expect(Object.keys(doc.paths['/v1/orders'].get.responses).sort()).toEqual([
      '200',
      '401',
      '403',
      '404',
      '422',
      '429',
      '502',
    ]);
  });
});

import type { CallRecord } from '@avatar-pipeline/client/provider/http-transport';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import {
  ProviderAuthError,
  ProviderBadRequestError,
  ProviderInvalidResponseError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
} from '@avatar-pipeline/client/provider/errors';
import { reply, startTestHttpServer, type TestHttpServer } from '../../fixtures/http-test-server';
import { providerFailure } from '../../helpers/provider-failure';

let server: TestHttpServer;
let calls: CallRecord[];

beforeAll(async () => {
  server = await startTestHttpServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  calls = [];
});

function clientFor(baseUrl: string, options: { timeoutMs?: number; apiKey?: string } = {}) {
  return new ProviderClient({
    baseUrl,
    apiKey: options.apiKey ?? 'secret-key',
    timeoutMs: options.timeoutMs ?? 5_000,
    onCall: (call) => calls.push(call),
  });
}

const order = { id: 12, parent: 0, gender: 1, styles: [1], status: 'CREATED' };

describe('requests', () => {
  it('sends the API key as a bearer token, and JSON bodies with a content type', async () => {
    server.handle(reply(200, order));
    await clientFor(server.origin).createModel({ styles: [1, 2], gender: 2 });
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/order/create/model');
    expect(request?.headers.authorization).toBe('Bearer secret-key');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual({ styles: [1, 2], gender: 2 });
  });

  it('sends gender as a string in the upload body', async () => {
    server.handle(reply(200, { id: 3, order_id: 12, image_url: 'u', selected: false }));
    await clientFor(server.origin).uploadTrainingImage(12, {
      gender: 1,
      image: 'data:image/png;base64,AAAA',
    });
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      gender: '1',
      image: 'data:image/png;base64,AAAA',
    });
  });

  it('keeps a path prefix of the base URL (/rest/api)', async () => {
    server.handle(reply(200, []));
    await clientFor(`${server.origin}/rest/api`).listOrders();
    await clientFor(`${server.origin}/rest/api`).listAvatarPage(7, 2);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/rest/api/order/list',
      '/rest/api/model/7/avatars/2',
    ]);
  });

  it.each(['/rest/api/', '/rest/api//'])('drops trailing slashes of the base URL (%s)', async (suffix) => {
    server.handle(reply(200, []));
    await clientFor(`${server.origin}${suffix}`).listModels();
    await clientFor(`${server.origin}/`).listModels();
    expect(server.requests.map((r) => r.url)).toEqual(['/rest/api/model/list', '/model/list']);
  });

  it('reaches every endpoint at its path and method', async () => {
    server.handle((req, res) => {
      const url = req.url ?? '';
      const body = url.endsWith('/upload')
        ? { id: 1 }
        : url.endsWith('/select')
          ? { status: 'ok' }
          : url.endsWith('/status') || url.endsWith('/run') || url.startsWith('/order/create')
            ? { id: 1, status: 'DONE' }
            : [];
      reply(200, body)(req, res, '');
    });
    const client = clientFor(server.origin);
    await client.createModel({ styles: [1], gender: 1 });
    await client.createOrder({ styles: [1], gender: 1, parent: 4 });
    await client.listOrders();
    await client.listModels();
    await client.listModelOrders(4);
    await client.uploadTrainingImage(4, { gender: 2, image: 'AAAA' });
    await client.listTrainingImages(4);
    await client.selectTrainingImage(4, 9);
    await client.getOrderStatus(4);
    await client.runOrder(4);
    await client.listAvatarPage(4, 0);
    await client.listStyles();
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /order/create/model',
      'POST /order/create',
      'GET /order/list',
      'GET /model/list',
      'GET /model/4/order/list',
      'POST /order/4/training-images/upload',
      'GET /order/4/training-images/list',
      'GET /order/4/training-images/9/select',
      'GET /order/4/status',
      'GET /order/4/run',
      'GET /model/4/avatars/0',
      'GET /styles/list',
    ]);
    expect(server.requests.every((r) => r.headers.authorization === 'Bearer secret-key')).toBe(true);
  });
});

describe('error classification', () => {
  it.each([401, 403])('%i is an auth error', async (status) => {
    server.handle(reply(status, { status: 'error', message: 'Invalid API key' }));
    const err = await providerFailure(clientFor(server.origin, { apiKey: 'wrong' }).listStyles());
    expect(err).toBeInstanceOf(ProviderAuthError);
    expect(err.kind).toBe('auth');
    expect(err.httpStatus).toBe(status);
    expect(err.providerMessage).toBe('Invalid API key');
  });

  it('400 is a bad request carrying the provider message', async () => {
    server.handle(reply(400, { status: 'error', message: 'styles must not be empty' }));
    const err = await providerFailure(clientFor(server.origin).createModel({ styles: [1], gender: 1 }));
    expect(err).toBeInstanceOf(ProviderBadRequestError);
    expect(err.providerMessage).toBe('styles must not be empty');
    expect(err.message).toBe(
      'Provider rejected the request (HTTP 400) on POST /order/create/model: styles must not be empty',
    );
  });

  it.each([
    [404, { error: 'Order not found' }, 'Order not found'],
    [409, { status: 'error', message: 'Order already running' }, 'Order already running'],
    [413, { error: 'Image too large' }, 'Image too large'],
    [422, { error: { message: 'gender must be 1 or 2' } }, 'gender must be 1 or 2'],
  ])('%i is a bad request', async (status, body, message) => {
    server.handle(reply(status, body));
    const err = await providerFailure(clientFor(server.origin).getOrderStatus(3));
    expect(err).toBeInstanceOf(ProviderBadRequestError);
    expect(err.kind).toBe('bad-request');
    expect(err.httpStatus).toBe(status);
    expect(err.providerMessage).toBe(message);
    expect(err.message).toContain(message);
  });

  it('429 with Retry-After in seconds is rate limited with retryAfterMs', async () => {
    server.handle(reply(429, { error: 'Too many requests' }, { 'retry-after': '7' }));
    const err = await providerFailure(clientFor(server.origin).listOrders());
    expect(err).toBeInstanceOf(ProviderRateLimitedError);
    expect(err.kind).toBe('rate-limited');
    expect((err as ProviderRateLimitedError).retryAfterMs).toBe(7_000);
  });

  it('429 with Retry-After as an HTTP date is rate limited with the time until then', async () => {
    const at = new Date(Date.now() + 30_000);
    server.handle(reply(429, '', { 'retry-after': at.toUTCString() }));
    const err = (await providerFailure(clientFor(server.origin).listOrders())) as ProviderRateLimitedError;
    expect(err).toBeInstanceOf(ProviderRateLimitedError);
    // HTTP dates have whole seconds; the call itself takes a little time.
    expect(err.retryAfterMs).toBeGreaterThan(27_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('429 without Retry-After is rate limited without a delay', async () => {
    server.handle(reply(429, { error: 'slow down' }));
    const err = (await providerFailure(clientFor(server.origin).listOrders())) as ProviderRateLimitedError;
    expect(err).toBeInstanceOf(ProviderRateLimitedError);
    expect(err.retryAfterMs).toBeUndefined();
  });

  it.each([500, 502, 503])(
    '%i with a gateway HTML page is unavailable, titled by the page',
    async (status) => {
      const html = `<!DOCTYPE html><html><head><title>${status} Service Temporarily Unavailable</title></head>
      <body><h1>Service Temporarily Unavailable</h1><hr><center>nginx</center></body></html>`;
      server.handle(reply(status, html));
      const err = await providerFailure(clientFor(server.origin).getOrderStatus(3));
      expect(err).toBeInstanceOf(ProviderUnavailableError);
      expect(err.kind).toBe('unavailable');
      expect(err.httpStatus).toBe(status);
      expect(err.providerMessage).toBe(`${status} Service Temporarily Unavailable`);
      expect(err.message).not.toContain('<');
    },
  );

  it.each([500, 503])('%i with an empty body is unavailable without a provider message', async (status) => {
    server.handle(reply(status));
    const err = await providerFailure(clientFor(server.origin).getOrderStatus(3));
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.providerMessage).toBeUndefined();
    expect(err.message).toBe(`Provider unavailable (HTTP ${status}) on GET /order/{id}/status`);
  });

  it('a dropped connection is unavailable', async () => {
    server.handle((req) => req.socket.destroy());
    const err = await providerFailure(clientFor(server.origin).runOrder(3));
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.httpStatus).toBeUndefined();
    expect(err.message).toMatch(/^Provider unreachable/);
  });

  it('a refused connection is unavailable', async () => {
    const closed = await startTestHttpServer();
    const origin = closed.origin;
    await closed.close();
    const err = await providerFailure(clientFor(origin).listStyles());
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('a server that never answers is unavailable after timeoutMs', async () => {
    server.handle(() => undefined);
    const started = Date.now();
    const err = await providerFailure(clientFor(server.origin, { timeoutMs: 150 }).getOrderStatus(3));
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.message).toContain('no answer within 150 ms');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a per-call timeout overrides the client default', async () => {
    server.handle(() => undefined);
    const err = await providerFailure(
      clientFor(server.origin, { timeoutMs: 60_000 }).getOrderStatus(3, { timeoutMs: 100 }),
    );
    expect(err.message).toContain('no answer within 100 ms');
  });

  it('a body that stalls after the headers is unavailable after timeoutMs', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id": 3,');
    });
    const err = await providerFailure(clientFor(server.origin, { timeoutMs: 150 }).getOrderStatus(3));
    expect(err).toBeInstanceOf(ProviderUnavailableError);
  });

  it('200 with malformed JSON is an invalid response', async () => {
    server.handle(reply(200, '{"id": 3, "status": "DO'));
    const err = await providerFailure(clientFor(server.origin).getOrderStatus(3));
    expect(err).toBeInstanceOf(ProviderInvalidResponseError);
    expect(err.kind).toBe('invalid-response');
    expect(err.message).toMatch(/not JSON/);
    // The start of the body is quoted, so a user sees what came back.
    expect(err.providerMessage).toBe(JSON.stringify('{"id": 3, "status": "DO'));
  });

  it('200 with an HTML page is an invalid response', async () => {
    server.handle(reply(200, '<html><title>Login</title></html>'));
    const err = await providerFailure(clientFor(server.origin).listOrders());
    expect(err).toBeInstanceOf(ProviderInvalidResponseError);
  });

  it('200 in a wrong shape is an invalid response quoting the offending path', async () => {
    server.handle(reply(200, { orders: [order, { ...order, id: 'thirteen' }] }));
    const err = await providerFailure(clientFor(server.origin).listOrders());
    expect(err).toBeInstanceOf(ProviderInvalidResponseError);
    expect(err.message).toContain('"1.id"');
    expect(err.message).toContain('GET /order/list');
  });

  it('200 with an object where a list belongs is an invalid response at the root', async () => {
    server.handle(reply(200, { results: [] }));
    const err = await providerFailure(clientFor(server.origin).listStyles());
    expect(err).toBeInstanceOf(ProviderInvalidResponseError);
    expect(err.message).toContain('"(root)"');
  });

  it('keeps a status never seen before instead of failing', async () => {
    server.handle(reply(200, { id: 3, status: 'QUEUED_FOR_GPU', progress: 0 }));
    expect(await clientFor(server.origin).getOrderStatus(3)).toEqual({
      id: 3,
      status: 'QUEUED_FOR_GPU',
      progress: 0,
    });
  });
});

describe('onCall hook', () => {
  it("reports the id a write's answer carried, and none for reads", async () => {
    const client = clientFor(server.origin);
    server.handle(reply(200, order));
    await client.createModel({ styles: [1], gender: 1 });
    server.handle(reply(200, { id: 12, status: 'CREATED' }));
    await client.getOrderStatus(12);
    expect(calls.map(({ endpoint, resultId }) => ({ endpoint, resultId }))).toEqual([
      { endpoint: '/order/create/model', resultId: 12 },
      { endpoint: '/order/{id}/status', resultId: undefined },
    ]);
  });

  it('reports the endpoint template, method, outcome and status of each call', async () => {
    const client = clientFor(server.origin);
    server.handle(reply(200, { id: 41, status: 'processing', progress: 50 }));
    await client.getOrderStatus(41);
    server.handle(reply(404, { error: 'no such order' }));
    await providerFailure(client.getOrderStatus(42));
    server.handle(reply(200, 'nope'));
    await providerFailure(client.listAvatarPage(41, 3));
    server.handle((req) => req.socket.destroy());
    await providerFailure(client.selectTrainingImage(41, 5));
    expect(
      calls.map(({ method, endpoint, outcome, httpStatus }) => ({ method, endpoint, outcome, httpStatus })),
    ).toEqual([
      { method: 'GET', endpoint: '/order/{id}/status', outcome: 'ok', httpStatus: 200 },
      { method: 'GET', endpoint: '/order/{id}/status', outcome: 'bad-request', httpStatus: 404 },
      { method: 'GET', endpoint: '/model/{id}/avatars/{page}', outcome: 'invalid-response', httpStatus: 200 },
      {
        method: 'GET',
        endpoint: '/order/{id}/training-images/{selfie_id}/select',
        outcome: 'unavailable',
        httpStatus: undefined,
      },
    ]);
    expect(calls.every((c) => c.durationMs >= 0)).toBe(true);
  });

  it('reports rate limiting and auth outcomes', async () => {
    const client = clientFor(server.origin);
    server.handle(reply(429, '', { 'retry-after': '1' }));
    await providerFailure(client.listStyles());
    server.handle(reply(401, { error: 'bad key' }));
    await providerFailure(client.listStyles());
    expect(calls.map((c) => c.outcome)).toEqual(['rate-limited', 'auth']);
  });
});

describe('cancellation', () => {
  it('an external AbortSignal aborts a call in flight', async () => {
    server.handle(() => undefined);
    const controller = new AbortController();
    const call = clientFor(server.origin, { timeoutMs: 60_000 }).getOrderStatus(3, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('workflow cancelled')), 50);
    const started = Date.now();
    await expect(call).rejects.toThrow('workflow cancelled');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('an already-aborted signal sends nothing', async () => {
    server.handle(reply(200, []));
    const err: unknown = await clientFor(server.origin)
      .listOrders({ signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'AbortError' });
    expect(server.requests).toEqual([]);
  });
});

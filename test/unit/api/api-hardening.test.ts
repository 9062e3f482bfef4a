import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { API_TOKEN_PLACEHOLDER } from '../../../src/api/bearer-auth';
import { createApiServer, DEFAULT_API_LIMITS, type ApiServerOptions } from '../../../src/api/server';
import type { ApiLimits } from '../../../src/config/load-config';
import { fsStorage, testConfig } from '../../helpers/pipeline-worker';
import { temporaryDirectory } from '../../helpers/temp-dir';

const TOKEN = 'hardening-token-0123456789';

/** A Temporal client whose namespace call fails like an unreachable server would; nothing here reaches Temporal otherwise. */
function unreachableTemporal(): Client {
  return {
    connection: { withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn() },
    workflowService: {
      describeNamespace: () =>
        Promise.reject(new Error('14 UNAVAILABLE: No connection established to 10.9.8.7:7233')),
    },
  } as unknown as Client;
}

async function apiConfig(api: Partial<ApiServerOptions['config']['api']> = {}) {
  const root = temporaryDirectory('api-hardening-');
  const base = testConfig({ taskQueue: 'q', providerUrl: 'http://127.0.0.1:1', imageRoots: [root] });
  return {
    ...base,
    temporal: { ...base.temporal, address: '10.9.8.7:7233', namespace: 'secret-namespace' },
    api: { ...base.api, tokens: [TOKEN], blobDir: path.join(root, 'blobs'), ...api },
    storage: fsStorage(api.blobDir ?? path.join(root, 'blobs')),
  };
}

describe('API hardening', () => {
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    app = await createApiServer({
      config: await apiConfig(),
      client: unreachableTemporal(),
      provider: { listStyles: () => Promise.resolve([{ id: 3, name: 'Oil', ready: true }]) } as never,
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
  });

  test('public /readyz says only "not ready"; with a token it names what failed', async () => {
    const anonymous = await fetch(`${base}/readyz`);
    expect(anonymous.status).toBe(503);
    const text = await anonymous.text();
    expect(JSON.parse(text)).toEqual({ error: 'not ready', issues: [] });
    expect(text).not.toMatch(/10\.9\.8\.7|secret-namespace|UNAVAILABLE/);

    const wrong = await fetch(`${base}/readyz`, {
      headers: { authorization: 'Bearer not-the-token-at-all' },
    });
    expect(await wrong.json()).toEqual({ error: 'not ready', issues: [] });

    const operator = await fetch(`${base}/readyz`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(operator.status).toBe(503);
    expect(((await operator.json()) as { error: string }).error).toMatch(
      /Temporal at 10\.9\.8\.7:7233 \(namespace secret-namespace\) is not reachable: 14 UNAVAILABLE/,
    );
  });

  test('a multipart body that ends before its closing boundary is answered 400, not 500', async () => {
    const boundary = 'cut-boundary';
    const head = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="styles"',
      '',
      '3',
      `--${boundary}`,
      'Content-Disposition: form-data; name="selfies"; filename="a.png"',
      'Content-Type: image/png',
      '',
      '\x89PNG\r\n\x1a\n',
    ].join('\r\n');
    const response = await rawRequest(
      base,
      [
        'POST /v1/pipelines HTTP/1.1',
        'Host: localhost',
        `Authorization: Bearer ${TOKEN}`,
        `Content-Type: multipart/form-data; boundary=${boundary}`,
        `Content-Length: ${Buffer.byteLength(head, 'latin1')}`,
        '',
        head,
      ].join('\r\n'),
    );
    expect(response).toMatch(/^HTTP\/1\.1 400 /);
    expect(response).toMatch(/The upload ended before the form was complete/);
  });

  test('a __proto__ key is refused saying what is wrong', async () => {
    const response = await fetch(`${base}/v1/pipelines`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"images":["/a.png"],"styles":[3],"gender":1,"__proto__":{"admin":true}}',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string };
    expect(body.error).toMatch(/"__proto__" and "constructor" keys are not allowed/);
    expect(body.error).not.toMatch(/not valid JSON/);
  });

  test('the placeholder refused is the one .env.example ships', async () => {
    const example = await readFile(path.join(__dirname, '../../../.env.example'), 'utf8');
    expect(example).toMatch(new RegExp(`^API_TOKENS=${API_TOKEN_PLACEHOLDER}$`, 'm'));
  });

  test.each([
    ['a token under 16 characters', ['short-token'], /API_TOKENS: token 1 is 11 characters; use at least 16/],
    [
      'the .env.example placeholder',
      ['a-real-token-0123456789', 'change-me-to-a-long-random-token'],
      /API_TOKENS: token 2 is the \.env\.example placeholder/,
    ],
  ])('refuses to start with %s', async (_name, tokens, message) => {
    await expect(
      createApiServer({ config: await apiConfig({ tokens }), client: unreachableTemporal() }),
    ).rejects.toThrow(message);
  });
});

describe('API limits: timeouts, connection cap, per-token rate limit', () => {
  const servers: FastifyInstance[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });
  async function serve(limits: Partial<ApiLimits>, tokens = [TOKEN]) {
    const app = await createApiServer({
      config: await apiConfig({ tokens, limits: { ...DEFAULT_API_LIMITS, ...limits } }),
      client: unreachableTemporal(),
      provider: { listStyles: () => Promise.resolve([{ id: 3, name: 'Oil', ready: true }]) } as never,
    });
    servers.push(app);
    return { app, base: await app.listen({ port: 0, host: '127.0.0.1' }) };
  }

  test('Node server timeouts and the connection cap are set (defaults)', async () => {
    const { app } = await serve({});
    expect(app.server.requestTimeout).toBe(DEFAULT_API_LIMITS.requestTimeoutMs);
    expect(app.server.timeout).toBeGreaterThan(0);
    expect(app.server.keepAliveTimeout).toBeGreaterThan(0);
    expect(app.server.maxConnections).toBe(DEFAULT_API_LIMITS.maxConnections);
    expect(app.server.headersTimeout).toBeLessThanOrEqual(10_000);
  });

  // One address must not fill the whole connection cap with half-sent requests.
  test('with 1,000 half-open sockets from one address, another address still gets answers', async () => {
    const { base } = await serve({ maxConnections: 1_000 });
    const { hostname, port } = new URL(base);
    const halfOpen: Socket[] = [];
    let closedByServer = 0;
    const open = () =>
      new Promise<void>((resolve) => {
        const socket = connect({ port: Number(port), host: hostname, localAddress: '127.0.0.1' }, () => {
          socket.write('GET /v1/styles HTTP/1.1\r\nHost: x\r\n');
          resolve();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => {
          closedByServer++;
          resolve();
        });
        halfOpen.push(socket);
      });
    try {
      for (let batch = 0; batch < 10; batch++) await Promise.all(Array.from({ length: 100 }, open));
      // Beyond the per-client cap, sockets are closed as soon as they are accepted (on a loaded
      // machine the closes may take a while to arrive); the rest stay open, half-sent.
      const beyondCap = 1_000 - DEFAULT_API_LIMITS.maxConnectionsPerClient;
      for (const deadline = Date.now() + 10_000; closedByServer < beyondCap && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(closedByServer).toBe(beyondCap);
      const answer = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          `${base}/v1/styles`,
          { localAddress: '127.0.0.2', agent: false, headers: { authorization: `Bearer ${TOKEN}` } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(answer).toBe(200);
    } finally {
      for (const socket of halfOpen) socket.destroy();
    }
  }, 30_000);

  test("each token has its own budget; requests without a valid token share their address's", async () => {
    const second = 'second-token-0123456789';
    const { base } = await serve({ rateLimitPerMinute: 3 }, [TOKEN, second]);
    const get = (token?: string) =>
      fetch(`${base}/v1/styles`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    for (let i = 0; i < 3; i++) expect((await get(TOKEN)).status).toBe(200);
    const limited = await get(TOKEN);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.json()).toEqual({
      error: expect.stringMatching(/^Too many requests: at most 3 a minute for each token/),
      issues: [],
    });
    expect((await get(second)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await get('guess-guess-guess-guess')).status).toBe(401);
    expect((await get('another-guess-another-guess')).status).toBe(429);
    expect((await get()).status).toBe(429);
  });

  test('a body trickled in byte by byte is cut off at the request deadline', async () => {
    const { base } = await serve({ requestTimeoutMs: 1_000 });
    const { hostname, port } = new URL(base);
    const socket = connect(Number(port), hostname);
    const started = Date.now();
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
    });
    socket.write(
      `POST /v1/pipelines HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
    );
    const drip = setInterval(() => socket.writable && socket.write(' '), 200);
    try {
      expect(await answer).toMatch(/^HTTP\/1\.1 408 /);
      // Closed by the deadline, not by the test's own timeout.
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  }, 15_000);

  test('connections past the cap are refused', async () => {
    const { base } = await serve({ maxConnections: 2 });
    const { hostname, port } = new URL(base);
    const open = () =>
      new Promise<ReturnType<typeof connect>>((resolve) => {
        const socket = connect(Number(port), hostname, () => resolve(socket));
      });
    const held = [await open(), await open()];
    try {
      const third = await open();
      const closed = await new Promise<boolean>((resolve) => {
        third.on('close', () => resolve(true));
        third.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
        setTimeout(() => resolve(false), 5_000);
      });
      expect(closed).toBe(true);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});

/** Sends raw bytes (a whole HTTP request whose multipart body is cut short); resolves with the answer. */
function rawRequest(base: string, text: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(Buffer.from(text, 'latin1')));
    socket.setTimeout(5_000, () => socket.end());
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
      if (/\r\n\r\n[\s\S]*\}$/.test(answer)) socket.end();
    });
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

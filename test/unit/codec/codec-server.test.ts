import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from '../../../src/codec/aes-gcm-codec';
import { connect } from 'node:net';
import {
  MAX_CONCURRENT_REQUESTS,
  startCodecServer,
  TOKEN_COOKIE,
  type RunningCodecServer,
} from '../../../src/codec/codec-server';
import { payloadsFromJson, payloadsToJson } from '../../../src/codec/payload-json';

const UI = 'http://localhost:8080';

describe('codec server', () => {
  const codec = new AesGcmPayloadCodec({ currentKeyId: 'k1', keys: [{ id: 'k1', key: randomBytes(32) }] });
  let server: RunningCodecServer;
  const lines: string[] = [];

  beforeAll(async () => {
    server = await startCodecServer({
      codec,
      tokens: ['operator-token', 'second-token'],
      corsOrigins: [UI],
      log: (line) => lines.push(line),
    });
  });
  afterAll(() => server?.stop());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(server.url + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const encrypted = async (value: unknown) =>
    payloadsToJson(await codec.encode([defaultPayloadConverter.toPayload(value)]));

  it('decodes for a caller with a token, in the codec server protocol', async () => {
    const res = await post('/decode', await encrypted({ imageUrl: 'https://cdn/a.png' }), {
      Authorization: 'Bearer second-token',
      'X-Namespace': 'default',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Parameters<typeof payloadsFromJson>[0];
    const [payload] = payloadsFromJson(body);
    expect(defaultPayloadConverter.fromPayload(payload!)).toEqual({ imageUrl: 'https://cdn/a.png' });
  });

  it('encodes what it decodes', async () => {
    const plain = payloadsToJson([defaultPayloadConverter.toPayload('hello')]);
    const res = await post('/encode', plain, { Authorization: 'Bearer operator-token' });
    expect(res.status).toBe(200);
    const [payload] = await codec.decode(
      payloadsFromJson((await res.json()) as Parameters<typeof payloadsFromJson>[0]),
    );
    expect(defaultPayloadConverter.fromPayload(payload!)).toBe('hello');
  });

  it('refuses a caller without a token (401) and one with a wrong token (403)', async () => {
    const body = await encrypted('secret');
    const none = await post('/decode', body);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(JSON.stringify(await none.json())).not.toContain('secret');
    expect((await post('/decode', body, { Authorization: 'Bearer operator-tokem' })).status).toBe(403);
    expect((await post('/decode', body, { Authorization: 'Basic b3BlcmF0b3ItdG9rZW4=' })).status).toBe(403);
  });

  it('answers the UI origin preflight, and no other origin', async () => {
    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        Origin: UI,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization.*X-Namespace/);
    const other = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example' },
    });
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const res = await post('/decode', await encrypted(1), {
      Authorization: 'Bearer operator-token',
      Origin: UI,
    });
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
  });

  it('lets a browser sign in once with a token kept in an HttpOnly cookie', async () => {
    const bad = await fetch(`${server.url}/login`, {
      method: 'POST',
      body: new URLSearchParams({ token: 'nope' }),
    });
    expect(bad.status).toBe(403);
    const ok = await fetch(`${server.url}/login`, {
      method: 'POST',
      body: new URLSearchParams({ token: 'operator-token' }),
    });
    expect(ok.status).toBe(200);
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^codec_token=operator-token; HttpOnly; SameSite=Strict/);
    const res = await post('/decode', await encrypted('via cookie'), { Cookie: cookie.split(';')[0]! });
    expect(res.status).toBe(200);
  });

  it('reports bad bodies and undecryptable payloads as 400, and serves health without a token', async () => {
    const auth = { Authorization: 'Bearer operator-token' };
    expect((await post('/decode', { nope: 1 }, auth)).status).toBe(400);
    const foreign = new AesGcmPayloadCodec({
      currentKeyId: 'k7',
      keys: [{ id: 'k7', key: randomBytes(32) }],
    });
    const body = payloadsToJson(await foreign.encode([defaultPayloadConverter.toPayload('x')]));
    const res = await post('/decode', body, auth);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('"k7"');
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/decode`)).status).toBe(405);
  });

  /** Sends only a request head (its body never comes); resolves with whatever the server answers. */
  const headOnly = (head: string[]) => {
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        resolve(text);
      });
      socket.on('close', () => resolve(text));
    });
    return { socket, answer };
  };

  it('refuses a caller without a token before reading the body it announces', async () => {
    const { socket, answer } = headOnly([
      'POST /decode HTTP/1.1',
      'Host: x',
      'Content-Type: application/json',
      `Content-Length: ${30 * 1024 * 1024}`,
    ]);
    try {
      expect(await answer).toMatch(/^HTTP\/1\.1 401 /);
    } finally {
      socket.destroy();
    }
  });

  it('takes at most a few KiB on /login', async () => {
    const big = await fetch(`${server.url}/login`, {
      method: 'POST',
      body: new URLSearchParams({ token: 'x'.repeat(64 * 1024) }),
    });
    expect(big.status).toBe(413);
  });

  it('answers a malformed sign-in cookie 400, not 500', async () => {
    const res = await post('/decode', await encrypted('x'), { Cookie: `${TOKEN_COOKIE}=%E0%A4%A` });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/cookie is not validly encoded/);
  });

  it(`serves at most ${MAX_CONCURRENT_REQUESTS} requests at once; more are answered 503 at once`, async () => {
    const held = Array.from({ length: MAX_CONCURRENT_REQUESTS }, () =>
      headOnly([
        'POST /decode HTTP/1.1',
        'Host: x',
        'Authorization: Bearer operator-token',
        'Content-Type: application/json',
        'Content-Length: 1000',
      ]),
    );
    try {
      // Every held request has been taken in (its token checked) before the next one is sent.
      await new Promise((r) => setTimeout(r, 300));
      const res = await post('/decode', await encrypted('x'), { Authorization: 'Bearer operator-token' });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
    } finally {
      for (const { socket } of held) socket.destroy();
    }
    await new Promise((r) => setTimeout(r, 200));
    const after = await post('/decode', await encrypted('x'), { Authorization: 'Bearer operator-token' });
    expect(after.status).toBe(200);
  });

  it('logs requests without tokens', () => {
    expect(lines.some((line) => line.startsWith('POST /decode 200'))).toBe(true);
    expect(lines.join('\n')).not.toMatch(/operator-token|second-token/);
  });
});

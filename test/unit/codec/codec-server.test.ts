import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from '@avatar-pipeline/client/codec/aes-gcm-codec';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { startCodecServer, TOKEN_COOKIE, type RunningCodecServer } from '../../../src/codec/codec-server';
import { payloadsFromJson, payloadsToJson } from '../../../src/codec/payload-json';
import { CODEC_SERVER_LIMITS } from '../../../src/http/server-limits';

const {
  loginBodyDeadlineMs: LOGIN_BODY_DEADLINE_MS,
  concurrentLogins: MAX_CONCURRENT_LOGINS,
  concurrentRequests: MAX_CONCURRENT_REQUESTS,
  maxConnectionsPerClient: MAX_CONNECTIONS_PER_CLIENT,
  failedTokensPerMinute: MAX_FAILED_TOKENS_PER_MINUTE,
} = CODEC_SERVER_LIMITS;

const UI = 'http://localhost:8080';

describe('codec server', () => {
  const codec = new AesGcmPayloadCodec({ currentKeyId: 'k1', keys: [{ id: 'k1', key: randomBytes(32) }] });
  let server: RunningCodecServer;
  const lines: string[] = [];

  beforeAll(async () => {
    server = await startCodecServer({
      codec,
      tokens: ['operator-token-0000000', 'second-token-00000000'],
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
      Authorization: 'Bearer second-token-00000000',
      'X-Namespace': 'default',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Parameters<typeof payloadsFromJson>[0];
    const [payload] = payloadsFromJson(body);
    expect(defaultPayloadConverter.fromPayload(payload!)).toEqual({ imageUrl: 'https://cdn/a.png' });
  });

  it('encodes what it decodes', async () => {
    const plain = payloadsToJson([defaultPayloadConverter.toPayload('hello')]);
    const res = await post('/encode', plain, { Authorization: 'Bearer operator-token-0000000' });
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
    expect((await post('/decode', body, { Authorization: 'Bearer operator-token-0000001' })).status).toBe(
      403,
    );
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
      Authorization: 'Bearer operator-token-0000000',
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
      body: new URLSearchParams({ token: 'operator-token-0000000' }),
    });
    expect(ok.status).toBe(200);
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie.split('; ').sort()).toEqual(
      ['codec_token=operator-token-0000000', 'HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Strict'].sort(),
    );
    const res = await post('/decode', await encrypted('via cookie'), { Cookie: cookie.split(';')[0]! });
    expect(res.status).toBe(200);
  });

  it('reports bad bodies and undecryptable payloads as 400, and serves health without a token', async () => {
    const auth = { Authorization: 'Bearer operator-token-0000000' };
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

  /** Sends only a request head (and `bodyStart`; the rest never comes); resolves with whatever the server answers. */
  const headOnly = (head: string[], bodyStart = '', localAddress?: string) => {
    const { hostname, port } = new URL(server.url);
    const socket = connect({ port: Number(port), host: hostname, ...(localAddress ? { localAddress } : {}) });
    socket.write(`${head.join('\r\n')}\r\n\r\n${bodyStart}`);
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

  it('answers a malformed sign-in cookie as a wrong token (403), not 500', async () => {
    const res = await post('/decode', await encrypted('x'), { Cookie: `${TOKEN_COOKIE}=%E0%A4%A` });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toBe('token not accepted');
  });

  it(`serves at most ${MAX_CONCURRENT_REQUESTS} requests at once; more are answered 503 at once`, async () => {
    const held = Array.from({ length: MAX_CONCURRENT_REQUESTS }, () =>
      headOnly([
        'POST /decode HTTP/1.1',
        'Host: x',
        'Authorization: Bearer operator-token-0000000',
        'Content-Type: application/json',
        'Content-Length: 1000',
      ]),
    );
    try {
      // Every held request has been taken in (its token checked) before the next one is sent.
      await new Promise((r) => setTimeout(r, 300));
      const res = await post('/decode', await encrypted('x'), {
        Authorization: 'Bearer operator-token-0000000',
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
    } finally {
      for (const { socket } of held) socket.destroy();
    }
    await new Promise((r) => setTimeout(r, 200));
    const after = await post('/decode', await encrypted('x'), {
      Authorization: 'Bearer operator-token-0000000',
    });
    expect(after.status).toBe(200);
  });

  /** A sign-in whose body never finishes. */
  const slowSignIn = () =>
    headOnly(
      [
        'POST /login HTTP/1.1',
        'Host: x',
        'Content-Type: application/x-www-form-urlencoded',
        'Content-Length: 200',
      ],
      'token=',
    );

  /** One request from `localAddress` (any 127/8 address on Linux), to keep per-address counts apart. */
  const requestFrom = (
    localAddress: string,
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body = '',
  ) =>
    new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
      const req = httpRequest(
        `${server.url}${path}`,
        { method, headers, localAddress, agent: false },
        (res) => {
          res.resume();
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              retryAfter: res.headers['retry-after'] as string | undefined,
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  // Slow sign-ins (no token needed) must not hold every slot and turn everyone away with 503.
  it('with 8 slow unauthenticated sign-ins held open, authenticated requests and /health still succeed', async () => {
    const slow = Array.from({ length: 8 }, () => slowSignIn());
    try {
      await new Promise((r) => setTimeout(r, 300));
      const decoded = await post('/decode', await encrypted('still served'), {
        Authorization: 'Bearer operator-token-0000000',
      });
      expect(decoded.status).toBe(200);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      // Sign-ins past their own gate are the ones turned away.
      const answers = await Promise.all(slow.slice(MAX_CONCURRENT_LOGINS).map(({ answer }) => answer));
      for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    } finally {
      for (const { socket } of slow) socket.destroy();
    }
  });

  const signIn = () =>
    fetch(`${server.url}/login`, {
      method: 'POST',
      body: new URLSearchParams({ token: 'operator-token-0000000' }),
    });

  it('gives sign-in slots back when their clients go away', async () => {
    const slow = Array.from({ length: MAX_CONCURRENT_LOGINS }, () => slowSignIn());
    await new Promise((r) => setTimeout(r, 300));
    expect((await signIn()).status).toBe(503);
    for (const { socket } of slow) socket.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect((await signIn()).status).toBe(200);
  });

  it(`cuts off sign-in bodies that have not arrived within ${LOGIN_BODY_DEADLINE_MS} ms, and frees their slots`, async () => {
    const started = Date.now();
    const slow = Array.from({ length: MAX_CONCURRENT_LOGINS }, () => slowSignIn());
    try {
      await Promise.all(slow.map(({ answer }) => answer));
      expect(Date.now() - started).toBeLessThan(LOGIN_BODY_DEADLINE_MS + 3_000);
      expect(slow.every(({ socket }) => socket.destroyed || socket.readableEnded)).toBe(true);
      expect((await signIn()).status).toBe(200);
    } finally {
      for (const { socket } of slow) socket.destroy();
    }
  }, 15_000);

  // Guessing tokens is slowed down: an address sending wrong ones past the limit is answered 429.
  it(`answers 429 with Retry-After to an address past ${MAX_FAILED_TOKENS_PER_MINUTE} wrong tokens a minute`, async () => {
    const guesser = '127.0.0.3';
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    for (let i = 0; i < MAX_FAILED_TOKENS_PER_MINUTE / 2; i++) {
      expect((await requestFrom(guesser, 'POST', '/login', form, `token=guess-${i}-0123456789`)).status).toBe(
        403,
      );
      const wrongBearer = {
        Authorization: `Bearer guess-${i}-0123456789`,
        'Content-Type': 'application/json',
      };
      expect((await requestFrom(guesser, 'POST', '/decode', wrongBearer, '{}')).status).toBe(403);
    }
    const refused = await requestFrom(guesser, 'POST', '/login', form, 'token=guess-more-0123456789');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    const guessed = { Authorization: 'Bearer guess-more-0123456789', 'Content-Type': 'application/json' };
    expect((await requestFrom(guesser, 'POST', '/decode', guessed, '{}')).status).toBe(429);
    const withToken = { Authorization: 'Bearer operator-token-0000000', 'Content-Type': 'application/json' };
    // Other addresses are not affected.
    expect((await requestFrom('127.0.0.4', 'POST', '/decode', withToken, '{"payloads":[]}')).status).toBe(
      200,
    );
  });

  // Trust III, L6: wrong tokens from an address locked the right token out for that address.
  it('serves an accepted token from an address past its wrong tokens, and refuses only its guesses', async () => {
    const shared = '127.0.0.11';
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    for (let i = 0; i < MAX_FAILED_TOKENS_PER_MINUTE; i++) {
      const wrong = { Authorization: `Bearer wrong-${i}-0123456789`, 'Content-Type': 'application/json' };
      expect((await requestFrom(shared, 'POST', '/decode', wrong, '{}')).status).toBe(403);
    }
    const wrong = { Authorization: 'Bearer wrong-again-0123456789', 'Content-Type': 'application/json' };
    expect((await requestFrom(shared, 'POST', '/decode', wrong, '{}')).status).toBe(429);
    const withToken = { Authorization: 'Bearer operator-token-0000000', 'Content-Type': 'application/json' };
    expect((await requestFrom(shared, 'POST', '/decode', withToken, '{"payloads":[]}')).status).toBe(200);
    expect((await requestFrom(shared, 'POST', '/login', form, 'token=operator-token-0000000')).status).toBe(
      200,
    );
    expect((await requestFrom(shared, 'POST', '/login', form, 'token=wrong-again-0123456789')).status).toBe(
      429,
    );
  });

  // The codec server reads bearer tokens by the API's rule, not by a looser one of its own.
  it("reads bearer tokens by the API's rule: a token after spaces or tabs, nothing else", async () => {
    /** Status of a POST /decode with this Authorization header, sent as Latin-1 bytes (as HTTP has them). */
    const decode = (authorization: string) =>
      new Promise<string>((resolve) => {
        const { hostname, port } = new URL(server.url);
        const socket = connect({ port: Number(port), host: hostname, localAddress: '127.0.0.7' });
        const body = '{"payloads":[]}';
        const head = [
          'POST /decode HTTP/1.1',
          'Host: x',
          'Connection: close',
          `Authorization: ${authorization}`,
        ];
        head.push('Content-Type: application/json', `Content-Length: ${body.length}`);
        socket.end(Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`, 'latin1'));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('close', () => resolve(text.split(' ')[1] ?? ''));
      });
    expect(await decode('bearer \t operator-token-0000000')).toBe('200');
    expect(await decode('Bearer\u00a0operator-token-0000000')).toBe('403');
  });

  it(`closes connections past ${MAX_CONNECTIONS_PER_CLIENT} from one address`, async () => {
    const { hostname, port } = new URL(server.url);
    const open = () =>
      new Promise<ReturnType<typeof connect>>((resolve) => {
        const socket = connect({ port: Number(port), host: hostname, localAddress: '127.0.0.5' }, () =>
          resolve(socket),
        );
      });
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS_PER_CLIENT }, open));
    try {
      const extra = await open();
      const closed = await new Promise<boolean>((resolve) => {
        extra.on('error', () => undefined); // a reset is one way of being closed
        const giveUp = setTimeout(() => resolve(false), 5_000);
        extra.on('close', () => {
          clearTimeout(giveUp);
          resolve(true);
        });
        extra.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      expect(closed).toBe(true);
      expect((await requestFrom('127.0.0.6', 'GET', '/health')).status).toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  it('refuses to start with a token shorter than 16 characters, naming CODEC_SERVER_TOKENS', async () => {
    const err: unknown = await startCodecServer({ codec, tokens: ['x'], corsOrigins: [] }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      { variable: 'CODEC_SERVER_TOKENS', reason: 'token 1 is 1 characters; use at least 16' },
    ]);
  });

  it('logs requests without tokens', () => {
    expect(lines.some((line) => line.startsWith('POST /decode 200'))).toBe(true);
    expect(lines.join('\n')).not.toMatch(/operator-token-0000000|second-token-00000000/);
  });
});

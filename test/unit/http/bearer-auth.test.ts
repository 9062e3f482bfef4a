import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  acceptedTokens,
  bearerAuth,
  bearerTokenOf,
  tokenCheck,
  type AuthFailure,
} from '../../../src/http/bearer-auth';

const TOKEN = 'plugin-token-0123456789';

describe('bearerTokenOf: the one Bearer rule of the API and the codec server', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER \t abc \t', 'abc'],
  ])('%j carries %j', (header, token) => {
    expect(bearerTokenOf(header)).toBe(token);
  });

  it.each([undefined, '', 'Bearer', 'Bearer ', 'Bearer a b', 'Basic abc', 'Bearerabc', 'Bearer\u00a0abc'])(
    '%j carries none',
    (header) => {
      expect(bearerTokenOf(header)).toBeUndefined();
    },
  );
});

describe('acceptedTokens and tokenCheck', () => {
  it('accepts every configured token and nothing else, whatever the lengths', () => {
    const accepts = acceptedTokens([TOKEN, 'x'.repeat(200)]);
    expect(accepts(TOKEN)).toBe(true);
    expect(accepts('x'.repeat(200))).toBe(true);
    expect(accepts(TOKEN.slice(0, -1))).toBe(false);
    expect(accepts('')).toBe(false);
  });

  it('refuses to be built without tokens', () => {
    expect(() => acceptedTokens([])).toThrow(/tokens are required/);
  });

  it('tells a missing bearer token from a wrong one', () => {
    const check = tokenCheck([TOKEN]);
    expect(check(`Bearer ${TOKEN}`)).toEqual({ presented: true, valid: true });
    expect(check('Bearer wrong-token-0123456789')).toEqual({ presented: true, valid: false });
    expect(check(`Basic ${TOKEN}`)).toEqual({ presented: false, valid: false });
  });
});

describe('bearerAuth plugin', () => {
  let app: FastifyInstance;
  const failures: AuthFailure[] = [];
  const order: string[] = [];

  beforeAll(async () => {
    app = Fastify();
    await app.register(fastifyCookie);
    app.get('/open', async () => 'open');
    await app.register(async (guarded) => {
      await guarded.register(bearerAuth, {
        tokens: [TOKEN],
        cookie: 'token',
        refuse: (failure) => {
          failures.push(failure);
          return Object.assign(new Error(failure), { statusCode: failure === 'missing' ? 401 : 403 });
        },
      });
      guarded.get(
        '/guarded',
        {
          onRequest: async () => {
            order.push('route hook');
          },
        },
        async () => {
          order.push('handler');
          return 'guarded';
        },
      );
    });
  });
  afterAll(() => app.close());
  beforeEach(() => {
    failures.length = 0;
    order.length = 0;
  });

  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ url, headers });

  it('lets a bearer token or the token cookie through', async () => {
    expect((await get('/guarded', { authorization: `Bearer ${TOKEN}` })).body).toBe('guarded');
    expect((await get('/guarded', { cookie: `token=${encodeURIComponent(TOKEN)}` })).body).toBe('guarded');
    expect(failures).toEqual([]);
  });

  it('refuses with the reason: missing, another scheme, a wrong token', async () => {
    expect((await get('/guarded')).statusCode).toBe(401);
    expect((await get('/guarded', { authorization: `Basic ${TOKEN}` })).statusCode).toBe(403);
    expect((await get('/guarded', { authorization: 'Bearer wrong-token-0123456789' })).statusCode).toBe(403);
    expect((await get('/guarded', { cookie: 'token=wrong-token-0123456789' })).statusCode).toBe(403);
    expect((await get('/guarded', { cookie: 'token=%E0%A4%A' })).statusCode).toBe(403);
    expect(failures).toEqual(['missing', 'not-bearer', 'rejected', 'rejected', 'rejected']);
  });

  it('reads the cookie only when no Authorization header comes', async () => {
    const res = await get('/guarded', { authorization: 'Basic x', cookie: `token=${TOKEN}` });
    expect(res.statusCode).toBe(403);
    expect(failures).toEqual(['not-bearer']);
  });

  it("runs after the route's own onRequest hooks and before the handler", async () => {
    await get('/guarded');
    expect(order).toEqual(['route hook']);
    await get('/guarded', { authorization: `Bearer ${TOKEN}` });
    expect(order).toEqual(['route hook', 'route hook', 'handler']);
  });

  it('guards only the routes of the scope it is registered in', async () => {
    expect((await get('/open')).statusCode).toBe(200);
    expect(failures).toEqual([]);
  });
});

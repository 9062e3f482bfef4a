import fastifyCookie from '@fastify/cookie';
import fastifyCors from '@fastify/cors';
import type { PayloadCodec } from '@temporalio/common';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { tokenProblems } from '../config/bearer-token-rules';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { acceptedTokens, bearerAuth } from '../http/bearer-auth';
import { RequestGate } from '../http/request-gate';
import { CODEC_SERVER_LIMITS as LIMITS, capConnections, serverOptions } from '../http/server-limits';
import { FailedTokenThrottle } from './failed-token-throttle';
import { payloadsBodySchema, payloadsFromJson, payloadsToJson } from './payload-json';

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Bearer tokens that may encode and decode; at least one. */
  tokens: readonly string[];
  /** Browser origins (the Temporal UI's) allowed to call it; others get no CORS headers. */
  corsOrigins: readonly string[];
  host?: string;
  /** 0 or omitted: a free port. */
  port?: number;
  /** One line per request (method, path, status); never headers or payloads. */
  log?: (line: string) => void;
}

export interface RunningCodecServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Set by POST /login, for browsers: the Temporal UI sends it along when its codec settings include credentials. */
export const TOKEN_COOKIE = 'codec_token';

class CodecError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** What guards the routes: the accepted tokens, wrong tokens per address, and the gates of work and sign-ins. */
interface Guards {
  accepts: (token: string) => boolean;
  throttle: FailedTokenThrottle;
  work: RequestGate;
  logins: RequestGate;
}

/**
 * The Temporal codec server protocol (POST /encode, POST /decode with `{"payloads": [...]}`), so
 * the Temporal UI and `temporal` CLI can show encrypted payloads to operators who hold a token.
 * A token comes as `Authorization: Bearer <token>`, or as the cookie POST /login sets (the UI can
 * send cookies to a codec server, but no header of its own). GET /health answers without one.
 * The token is checked before any body is read. Only a few authenticated requests are served at
 * once, and sign-ins have a gate of their own, so clients without a token (slow sign-in bodies
 * included) cannot crowd out those with one; /health is never gated. Each client address may hold
 * only a few connections and send only a few wrong tokens a minute.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  checkTokens(options.tokens);
  const app = Fastify({
    ...serverOptions(LIMITS),
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
  });
  capConnections(app.server, LIMITS);
  const guards: Guards = {
    accepts: acceptedTokens(options.tokens),
    throttle: new FailedTokenThrottle(LIMITS.failedTokensPerMinute, 60_000),
    work: new RequestGate(LIMITS.concurrentRequests),
    logins: new RequestGate(LIMITS.concurrentLogins),
  };
  guards.work.releaseOn(app);
  guards.logins.releaseOn(app);
  await registerHandling(app, options);
  app.get('/health', async () => ({ status: 'ok' }));
  registerSignIn(app, guards);
  await registerCodecRoutes(app, options, guards);
  return listen(app, options);
}

/** At least one token, and every one strong enough (CODEC_SERVER_TOKENS). */
function checkTokens(tokens: readonly string[]): void {
  if (tokens.length === 0) throw new Error('The codec server needs at least one token');
  const weak = tokenProblems(tokens);
  if (weak.length > 0)
    throw new ConfigError(weak.map((reason) => ({ variable: 'CODEC_SERVER_TOKENS', reason })));
}

/**
 * What every route shares: the request log, cookies, CORS for the allowed origins, error and
 * not-found answers, bodies read as text, and no caching of any answer.
 */
async function registerHandling(app: FastifyInstance, options: CodecServerOptions): Promise<void> {
  app.addHook('onResponse', async (request, reply) =>
    options.log?.(`${request.method} ${request.url.split('?')[0]} ${reply.statusCode}`),
  );
  await app.register(fastifyCookie);
  await app.register(fastifyCors, {
    origin: (origin, callback) =>
      callback(null, origin !== undefined && options.corsOrigins.includes(origin)),
    credentials: true,
    methods: ['POST', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Namespace'],
    maxAge: 600,
  });
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, _request, reply) => {
    if (err instanceof CodecError) return reply.code(err.statusCode).send({ error: err.message });
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send({ error: 'body too large' });
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send({ error: err.message });
    options.log?.(`codec server error: ${err.message}`);
    return reply.code(500).send({ error: 'internal error' });
  });
  // @fastify/cors answers allowed preflights itself and passes the others on as not found.
  app.setNotFoundHandler((request, reply) =>
    request.method === 'OPTIONS'
      ? reply.code(403).send({ error: 'origin not allowed' })
      : reply.code(404).send({ error: 'not found' }),
  );
  // Bodies are read as text whatever their declared type (the UI and CLI differ); JSON is parsed here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('Cache-Control', 'no-store');
    return payload;
  });
}

/** GET /login, the sign-in page, and POST /login, which sets the token cookie; behind their own gate. */
function registerSignIn(app: FastifyInstance, { accepts, throttle, logins }: Guards): void {
  app.get('/login', async (_request, reply) => reply.type('text/html; charset=utf-8').send(LOGIN_PAGE));
  const takeLoginSlot = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!logins.tryTake(request)) throw busy(reply, 'sign-ins');
    // A body trickled in to hold the gate is cut off; the gate is released when the socket closes.
    const deadline = setTimeout(() => request.raw.destroy(), LIMITS.loginBodyDeadlineMs);
    logins.onRelease(request, () => clearTimeout(deadline));
  };
  app.post(
    '/login',
    {
      bodyLimit: LIMITS.loginBodyBytes,
      onRequest: takeLoginSlot,
      preHandler: async (request) => logins.release(request),
    },
    async (request, reply) => {
      const token =
        new URLSearchParams(typeof request.body === 'string' ? request.body : '').get('token') ?? '';
      if (!accepts(token)) throw wrongToken(throttle, request, reply);
      return reply
        .setCookie(TOKEN_COOKIE, token, {
          httpOnly: true,
          sameSite: 'strict',
          path: '/',
          maxAge: 12 * 60 * 60,
          secure: request.headers['x-forwarded-proto'] === 'https',
        })
        .send({ status: 'signed in: this browser may now decode payloads for 12 hours' });
    },
  );
}

/**
 * POST /encode and /decode for a token (header or cookie), checked before the work gate, which
 * comes before the body is read; other methods get 405.
 */
async function registerCodecRoutes(
  app: FastifyInstance,
  options: CodecServerOptions,
  { throttle, work }: Guards,
): Promise<void> {
  for (const path of ['/encode', '/decode'] as const) {
    app.route({
      method: ['GET', 'PUT', 'PATCH', 'DELETE'],
      url: path,
      handler: async (_request, reply) => reply.code(405).send({ error: 'use POST' }),
    });
  }
  await app.register(async (authorized) => {
    await authorized.register(bearerAuth, {
      tokens: options.tokens,
      cookie: TOKEN_COOKIE,
      refuse: (failure, request, reply) => {
        if (failure === 'missing') {
          void reply.header('WWW-Authenticate', 'Bearer');
          return new CodecError(401, 'a token is required (Authorization: Bearer <token>)');
        }
        return wrongToken(throttle, request, reply);
      },
    });
    for (const path of ['/encode', '/decode'] as const) {
      authorized.post(
        path,
        {
          // After the token check (onRequest), before the body is read.
          preParsing: async (request, reply) => {
            if (!work.tryTake(request)) throw busy(reply, 'requests');
          },
        },
        async (request) => codePayloads(options.codec, path, request.body),
      );
    }
  });
}

/** The answer to POST /encode or /decode: the body's payloads, parsed, encoded or decoded. */
async function codePayloads(codec: PayloadCodec, path: '/encode' | '/decode', body: unknown) {
  let json: unknown;
  try {
    json = JSON.parse(typeof body === 'string' ? body : '');
  } catch {
    throw new CodecError(400, 'body is not JSON');
  }
  const parsed = payloadsBodySchema.safeParse(json);
  if (!parsed.success) throw new CodecError(400, `body must be {"payloads": [...]}: ${parsed.error.message}`);
  const payloads = payloadsFromJson(parsed.data);
  try {
    const out = path === '/encode' ? await codec.encode(payloads) : await codec.decode(payloads);
    return payloadsToJson(out);
  } catch (err) {
    throw new CodecError(400, err instanceof Error ? err.message : String(err));
  }
}

/**
 * The answer to a wrong token: 403, or 429 once the address is past its wrong tokens a minute. The
 * token is checked first, so an accepted token is served from any address whatever was guessed
 * from it (wrong tokens sent from an operator's address cannot lock the operator out).
 */
function wrongToken(throttle: FailedTokenThrottle, request: FastifyRequest, reply: FastifyReply): CodecError {
  const wait = throttle.retryAfterSeconds(request.socket.remoteAddress);
  if (wait === 0) {
    throttle.recordFailure(request.socket.remoteAddress);
    return new CodecError(403, 'token not accepted');
  }
  void reply.header('Retry-After', String(wait));
  return new CodecError(
    429,
    `too many wrong tokens from this address: at most ${LIMITS.failedTokensPerMinute} a minute; retry in ${wait} s`,
  );
}

/** The answer when a gate is full: 503, retry in a second. */
function busy(reply: FastifyReply, what: string): CodecError {
  void reply.header('Retry-After', '1');
  return new CodecError(503, `busy: too many ${what} at once; retry shortly`);
}

async function listen(app: FastifyInstance, options: CodecServerOptions): Promise<RunningCodecServer> {
  await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const host = options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    stop: () => app.close(),
  };
}

const LOGIN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Codec server sign-in</title></head>
<body style="font-family: sans-serif; max-width: 32em; margin: 4em auto">
<h1>Codec server</h1>
<p>Paste a codec server token (CODEC_SERVER_TOKENS) to let this browser decode payloads in the Temporal UI.</p>
<form method="post" action="login">
<input type="password" name="token" autocomplete="off" style="width: 100%" autofocus>
<p><button type="submit">Sign in</button></p>
</form>
</body></html>
`;

import fastifyCookie from '@fastify/cookie';
import fastifyCors from '@fastify/cors';
import type { PayloadCodec } from '@temporalio/common';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
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
  if (options.tokens.length === 0) throw new Error('The codec server needs at least one token');
  const weak = tokenProblems(options.tokens);
  if (weak.length > 0)
    throw new ConfigError(weak.map((reason) => ({ variable: 'CODEC_SERVER_TOKENS', reason })));
  const app = Fastify({
    ...serverOptions(LIMITS),
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
  });
  capConnections(app.server, LIMITS);
  const accepts = acceptedTokens(options.tokens);
  const throttle = new FailedTokenThrottle(LIMITS.failedTokensPerMinute, 60_000);
  const work = new RequestGate(LIMITS.concurrentRequests);
  const logins = new RequestGate(LIMITS.concurrentLogins);
  work.releaseOn(app);
  logins.releaseOn(app);
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
  /**
   * The answer to a wrong token: 403, or 429 once the address is past its wrong tokens a minute. The
   * token is checked first, so an accepted token is served from any address whatever was guessed
   * from it (wrong tokens sent from an operator's address cannot lock the operator out).
   */
  const wrongToken = (request: FastifyRequest, reply: FastifyReply) => {
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
  };
  const busy = (reply: FastifyReply, what: string) => {
    void reply.header('Retry-After', '1');
    return new CodecError(503, `busy: too many ${what} at once; retry shortly`);
  };
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

  app.get('/health', async () => ({ status: 'ok' }));
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
      if (!accepts(token)) throw wrongToken(request, reply);
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
        return wrongToken(request, reply);
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
        async (request) => {
          let json: unknown;
          try {
            json = JSON.parse(typeof request.body === 'string' ? request.body : '');
          } catch {
            throw new CodecError(400, 'body is not JSON');
          }
          const parsed = payloadsBodySchema.safeParse(json);
          if (!parsed.success)
            throw new CodecError(400, `body must be {"payloads": [...]}: ${parsed.error.message}`);
          const payloads = payloadsFromJson(parsed.data);
          try {
            const out =
              path === '/encode'
                ? await options.codec.encode(payloads)
                : await options.codec.decode(payloads);
            return payloadsToJson(out);
          } catch (err) {
            throw new CodecError(400, err instanceof Error ? err.message : String(err));
          }
        },
      );
    }
  });

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

import type { PayloadCodec } from '@temporalio/common';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { tokenProblems } from '../config/bearer-token-rules';
import { ConfigError } from '../config/config-error';
import { limitConnectionsPerClient, requestDeadlines } from '../http/connection-limits';
import { FailedTokenThrottle } from './failed-token-throttle';
import { payloadsBodySchema, payloadsFromJson, payloadsToJson } from './payload-json';
import { isKnownToken } from './token-check';
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

/** The UI posts a page's payloads at once; 2 MiB per payload is Temporal's own limit. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** A sign-in form holds one token. */
const MAX_LOGIN_BYTES = 4 * 1024;
/**
 * Authenticated /encode and /decode requests handled at once; more are answered 503 before their
 * bodies are read. Only requests with a valid token count, so nobody without one can fill it.
 */
export const MAX_CONCURRENT_REQUESTS = 8;
/** Sign-ins whose bodies are read at once (they come before any token, so they have their own gate). */
export const MAX_CONCURRENT_LOGINS = 4;
/** A sign-in body (a few hundred bytes) that has not arrived by then is cut off. */
export const LOGIN_BODY_DEADLINE_MS = 5_000;
/** Connections one client address may hold open; more are closed as they arrive. */
export const MAX_CONNECTIONS_PER_CLIENT = 32;
/** Wrong tokens (at /login or as a bearer token) one client address may send a minute; 429 past them. */
export const MAX_FAILED_TOKENS_PER_MINUTE = 10;
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
    bodyLimit: MAX_BODY_BYTES,
    ...requestDeadlines(60_000),
    connectionTimeout: 30_000,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
  });
  limitConnectionsPerClient(app.server, MAX_CONNECTIONS_PER_CLIENT);
  const log = (request: FastifyRequest, status: number) =>
    options.log?.(`${request.method} ${request.url.split('?')[0]} ${status}`);

  const throttle = new FailedTokenThrottle(MAX_FAILED_TOKENS_PER_MINUTE, 60_000);
  const work = new RequestGate(MAX_CONCURRENT_REQUESTS);
  const logins = new RequestGate(MAX_CONCURRENT_LOGINS);
  const release = (request: FastifyRequest) => {
    work.release(request);
    logins.release(request);
  };
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin !== undefined && options.corsOrigins.includes(origin)) {
      void reply.header('Access-Control-Allow-Origin', origin);
      void reply.header('Access-Control-Allow-Credentials', 'true');
      void reply.header('Vary', 'Origin');
    }
  });
  app.addHook('onResponse', async (request, reply) => {
    release(request);
    log(request, reply.statusCode);
  });
  app.addHook('onRequestAbort', async (request) => release(request));
  /** A client past its wrong tokens is refused whatever it sends, so the refusal reveals nothing. */
  const notThrottled = async (request: FastifyRequest, reply: FastifyReply) => {
    const wait = throttle.retryAfterSeconds(request.socket.remoteAddress);
    if (wait > 0) {
      void reply.header('Retry-After', String(wait));
      throw new CodecError(
        429,
        `too many wrong tokens from this address: at most ${MAX_FAILED_TOKENS_PER_MINUTE} a minute; retry in ${wait} s`,
      );
    }
  };
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, _request, reply) => {
    if (err instanceof CodecError) return reply.code(err.statusCode).send({ error: err.message });
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send({ error: 'body too large' });
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send({ error: err.message });
    options.log?.(`codec server error: ${err.message}`);
    return reply.code(500).send({ error: 'internal error' });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'not found' }));
  // Bodies are read as text whatever their declared type (the UI and CLI differ); JSON is parsed here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('Cache-Control', 'no-store');
    return payload;
  });

  app.options('/*', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined || !options.corsOrigins.includes(origin))
      return reply.code(403).send({ error: 'origin not allowed' });
    return reply
      .code(204)
      .header('Access-Control-Allow-Methods', 'POST, OPTIONS')
      .header('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Namespace')
      .header('Access-Control-Max-Age', '600')
      .send();
  });
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/login', async (_request, reply) => reply.type('text/html; charset=utf-8').send(LOGIN_PAGE));
  const takeLoginSlot = async (request: FastifyRequest, reply: FastifyReply) => {
    logins.take(request, reply, 'busy: too many sign-ins at once; retry shortly');
    // A body trickled in to hold the gate is cut off; the gate is released when the socket closes.
    const deadline = setTimeout(() => request.raw.destroy(), LOGIN_BODY_DEADLINE_MS);
    logins.onRelease(request, () => clearTimeout(deadline));
  };
  app.post(
    '/login',
    {
      bodyLimit: MAX_LOGIN_BYTES,
      onRequest: [notThrottled, takeLoginSlot],
      preHandler: async (request) => logins.release(request),
    },
    async (request, reply) => {
      const token =
        new URLSearchParams(typeof request.body === 'string' ? request.body : '').get('token') ?? '';
      if (!isKnownToken(token, options.tokens)) {
        throttle.recordFailure(request.socket.remoteAddress);
        return reply.code(403).send({ error: 'token not accepted' });
      }
      const secure = request.headers['x-forwarded-proto'] === 'https' ? '; Secure' : '';
      return reply
        .header(
          'Set-Cookie',
          `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200${secure}`,
        )
        .send({ status: 'signed in: this browser may now decode payloads for 12 hours' });
    },
  );
  const authorize = async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = presentedToken(request);
    if (presented === undefined) {
      void reply.header('WWW-Authenticate', 'Bearer');
      throw new CodecError(401, 'a token is required (Authorization: Bearer <token>)');
    }
    if (!isKnownToken(presented, options.tokens)) {
      throttle.recordFailure(request.socket.remoteAddress);
      throw new CodecError(403, 'token not accepted');
    }
  };
  const takeWorkSlot = async (request: FastifyRequest, reply: FastifyReply) =>
    work.take(request, reply, 'busy: too many requests at once; retry shortly');
  for (const path of ['/encode', '/decode'] as const) {
    app.post(path, { onRequest: [notThrottled, authorize, takeWorkSlot] }, async (request) => {
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
          path === '/encode' ? await options.codec.encode(payloads) : await options.codec.decode(payloads);
        return payloadsToJson(out);
      } catch (err) {
        throw new CodecError(400, err instanceof Error ? err.message : String(err));
      }
    });
    app.route({
      method: ['GET', 'PUT', 'PATCH', 'DELETE'],
      url: path,
      handler: async (_request, reply) => reply.code(405).send({ error: 'use POST' }),
    });
  }

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

/** At most `limit` requests hold a slot at once; a request past it is answered 503 with Retry-After. */
class RequestGate {
  private held = 0;
  private readonly slots = new WeakMap<FastifyRequest, (() => void)[]>();

  constructor(private readonly limit: number) {}

  take(request: FastifyRequest, reply: FastifyReply, busy: string): void {
    if (this.held >= this.limit) {
      void reply.header('Retry-After', '1');
      throw new CodecError(503, busy);
    }
    this.held++;
    this.slots.set(request, []);
  }

  /** Runs `then` when the request gives its slot back. */
  onRelease(request: FastifyRequest, then: () => void): void {
    this.slots.get(request)?.push(then);
  }

  release(request: FastifyRequest): void {
    const callbacks = this.slots.get(request);
    if (callbacks === undefined) return;
    this.slots.delete(request);
    this.held--;
    for (const callback of callbacks) callback();
  }
}

/** The bearer token, or the sign-in cookie's; '' for a header that is not a bearer token. */
function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    return match ? match[1]!.trim() : '';
  }
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name !== TOKEN_COOKIE) continue;
    try {
      return decodeURIComponent(value.join('='));
    } catch {
      throw new CodecError(400, `the ${TOKEN_COOKIE} cookie is not validly encoded; sign in again at /login`);
    }
  }
  return undefined;
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

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PayloadCodec } from '@temporalio/common';
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
/** Set by POST /login, for browsers: the Temporal UI sends it along when its codec settings include credentials. */
export const TOKEN_COOKIE = 'codec_token';

/**
 * The Temporal codec server protocol (POST /encode, POST /decode with `{"payloads": [...]}`), so
 * the Temporal UI and `temporal` CLI can show encrypted payloads to operators who hold a token.
 * A token comes as `Authorization: Bearer <token>`, or as the cookie POST /login sets (the UI can
 * send cookies to a codec server, but no header of its own). GET /health answers without one.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  if (options.tokens.length === 0) throw new Error('The codec server needs at least one token');
  const server = createServer((req, res) => {
    handle(req, res, options).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
      options.log?.(`codec server error: ${err instanceof Error ? err.message : String(err)}`);
    });
  });
  await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: CodecServerOptions): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://codec.invalid').pathname.replace(/\/+$/, '') || '/';
  const origin = req.headers.origin;
  const corsAllowed = origin !== undefined && options.corsOrigins.includes(origin);
  if (corsAllowed) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Vary', 'Origin');
  }
  const done = (status: number, body?: unknown): void => {
    send(res, status, body);
    options.log?.(`${req.method ?? '?'} ${path} ${status}`);
  };

  if (req.method === 'OPTIONS') {
    if (!corsAllowed) return done(403, { error: 'origin not allowed' });
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Namespace');
    res.setHeader('Access-Control-Max-Age', '600');
    return done(204);
  }
  if (req.method === 'GET' && path === '/health') return done(200, { status: 'ok' });
  if (path === '/login') return login(req, res, options, done);
  if (path !== '/encode' && path !== '/decode') return done(404, { error: 'not found' });
  if (req.method !== 'POST') return done(405, { error: 'use POST' });

  const presented = presentedToken(req);
  if (presented === undefined) {
    res.setHeader('WWW-Authenticate', 'Bearer');
    return done(401, { error: 'a token is required (Authorization: Bearer <token>)' });
  }
  if (!isKnownToken(presented, options.tokens)) return done(403, { error: 'token not accepted' });

  const text = await readBody(req);
  if (text === undefined) return done(413, { error: `body larger than ${MAX_BODY_BYTES} bytes` });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return done(400, { error: 'body is not JSON' });
  }
  const parsed = payloadsBodySchema.safeParse(json);
  if (!parsed.success)
    return done(400, { error: `body must be {"payloads": [...]}: ${parsed.error.message}` });
  const payloads = payloadsFromJson(parsed.data);
  try {
    const out =
      path === '/encode' ? await options.codec.encode(payloads) : await options.codec.decode(payloads);
    return done(200, payloadsToJson(out));
  } catch (err) {
    return done(400, { error: err instanceof Error ? err.message : String(err) });
  }
}

/** GET: a form to paste a token into; POST: checks it and keeps it in an HttpOnly cookie. */
async function login(
  req: IncomingMessage,
  res: ServerResponse,
  options: CodecServerOptions,
  done: (status: number, body?: unknown) => void,
): Promise<void> {
  if (req.method === 'GET') {
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(LOGIN_PAGE);
    options.log?.('GET /login 200');
    return;
  }
  if (req.method !== 'POST') return done(405, { error: 'use GET or POST' });
  const text = await readBody(req);
  const token = new URLSearchParams(text ?? '').get('token') ?? '';
  if (!isKnownToken(token, options.tokens)) return done(403, { error: 'token not accepted' });
  const secure = req.headers['x-forwarded-proto'] === 'https' ? '; Secure' : '';
  res.setHeader(
    'Set-Cookie',
    `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200${secure}`,
  );
  return done(200, { status: 'signed in: this browser may now decode payloads for 12 hours' });
}

function presentedToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    return match ? match[1]!.trim() : '';
  }
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === TOKEN_COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  res.statusCode = status;
  if (body === undefined) {
    res.end();
    return;
  }
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(body));
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
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

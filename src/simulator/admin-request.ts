import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMIN_ROUTES } from './admin-routes';
import { sendBytes, sendJson } from './http-responses';
import { IMAGE_ROUTES } from './image-resources';
import { parseJson, receiveBody } from './request-body';
import { matchRoute } from './route-matching';
import type { SimulatorRuntime } from './simulator-runtime';

const ROUTES = [...ADMIN_ROUTES, ...IMAGE_ROUTES];
const ADMIN_BODY_LIMIT = 1024 * 1024;

/** A request below `/__sim`; `path` is what follows that prefix. */
export async function serveAdminRequest(
  runtime: SimulatorRuntime,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const match = matchRoute(ROUTES, req.method ?? 'GET', path);
  if (match.kind === 'unknown') {
    req.resume();
    sendJson(res, 404, { error: `no simulator resource ${path}` });
    return;
  }
  if (match.kind === 'wrong-method') {
    req.resume();
    sendJson(res, 405, { error: `use ${match.allowed.join(', ')}` }, { Allow: match.allowed.join(', ') });
    return;
  }
  const refusal = 'guarded' in match.route && match.route.guarded ? guardProblem(runtime, req) : undefined;
  if (refusal) {
    req.resume();
    sendJson(res, refusal.status, { error: refusal.error }, refusal.headers);
    return;
  }
  const received = await receiveBody(req, ADMIN_BODY_LIMIT);
  const body = parseJson(received.bytes);
  if (received.oversize || !body.ok) {
    sendJson(res, 400, { error: 'body must be JSON (at most 1 MiB)' });
    return;
  }
  const result = match.route.handler({ runtime, params: match.params, body: body.value });
  if (result.kind === 'json') sendJson(res, result.status, result.body);
  else sendBytes(res, result.status, result.contentType, result.body, { 'Cache-Control': 'no-cache' });
}

/**
 * Why a request may not use a guarded control, checked before its body is read: with an admin
 * token configured, only `Authorization: Bearer <token>`; without one, only loopback clients that
 * name a loopback host (a page on a foreign host name that DNS-rebinds to 127.0.0.1 still sends its
 * own name in Host, so it is refused). A
 * POST must declare JSON, which a web page cannot send across origins without a CORS preflight
 * (which the simulator never grants), so a page open in a browser cannot drive the controls.
 */
function guardProblem(
  runtime: SimulatorRuntime,
  req: IncomingMessage,
): { status: number; error: string; headers?: Record<string, string> } | undefined {
  const token = runtime.options.adminToken;
  if (token !== null) {
    const presented = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!sameSecret(presented, token))
      return {
        status: 401,
        error: 'the simulator controls need Authorization: Bearer <SIMULATOR_ADMIN_TOKEN>',
        headers: { 'WWW-Authenticate': 'Bearer realm="simulator"' },
      };
  } else if (!isLoopback(req.socket.remoteAddress)) {
    return {
      status: 403,
      error: 'the simulator controls answer loopback clients only unless SIMULATOR_ADMIN_TOKEN is set',
    };
  } else if (!isLoopbackHost(req.headers.host)) {
    return {
      status: 403,
      error:
        'the simulator controls answer only Host: localhost, 127.0.0.1 or [::1] unless SIMULATOR_ADMIN_TOKEN is set',
    };
  }
  if (req.method === 'POST' && !/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
    return { status: 415, error: 'send the body as application/json' };
  return undefined;
}

function sameSecret(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** localhost, 127.0.0.1 or [::1], with or without a port. */
function isLoopbackHost(host: string | undefined): boolean {
  return /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i.test(host ?? '');
}

function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

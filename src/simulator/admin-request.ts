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
  const received = await receiveBody(req, ADMIN_BODY_LIMIT);
  const match = matchRoute(ROUTES, req.method ?? 'GET', path);
  if (match.kind === 'unknown') {
    sendJson(res, 404, { error: `no simulator resource ${path}` });
    return;
  }
  if (match.kind === 'wrong-method') {
    sendJson(res, 405, { error: `use ${match.allowed.join(', ')}` }, { Allow: match.allowed.join(', ') });
    return;
  }
  const body = parseJson(received.bytes);
  if (received.oversize || !body.ok) {
    sendJson(res, 400, { error: 'body must be JSON (at most 1 MiB)' });
    return;
  }
  const result = match.route.handler({ runtime, params: match.params, body: body.value });
  if (result.kind === 'json') sendJson(res, result.status, result.body);
  else sendBytes(res, result.status, result.contentType, result.body, { 'Cache-Control': 'no-cache' });
}

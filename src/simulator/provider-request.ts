import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { HandlerResult } from './handlers/handler-context';
import type { FaultPlan } from './fault-plan';
import { NO_FAULTS } from './fault-plan';
import {
  gatewayErrorPage,
  sendBytes,
  sendEmpty,
  sendJson,
  sendTruncatedJson,
  type Headers,
} from './http-responses';
import type { ResolvedSimulatorOptions } from './options';
import { presenterForDialect } from './presenters/presenter-for-dialect';
import { SimulatorRefusal } from './simulator-refusal';
import { SIMULATOR_ROUTES } from './provider-routes';
import { parseJson, receiveBody } from './request-body';
import { createResourceLinks } from './resource-links';
import { matchRoute } from './route-matching';
import type { SimulatorRuntime } from './simulator-runtime';

/** Room for the JSON around a Base64 image: the data-URI header, the gender field, whitespace. */
const BODY_OVERHEAD_BYTES = 64 * 1024;

function bodyLimit(options: ResolvedSimulatorOptions): number {
  return Math.ceil((options.maxImageBytes * 4) / 3) + BODY_OVERHEAD_BYTES;
}

function isAuthorized(req: IncomingMessage, apiKey: string): 'ok' | 'missing' | 'wrong' {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') return 'missing';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1] === apiKey ? 'ok' : 'wrong';
}

export interface ProviderRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** Path below the base path, or null when the request is not under the base path at all. */
  path: string | null;
  /** Origin for links when no publicOrigin is configured (from the Host header). */
  origin: string;
  /** Aborted when the simulator stops, ending slow answers early. */
  shutdown: AbortSignal;
}

/**
 * One provider request, in the order a real deployment meets it: the rate limiter and the
 * gateway (5xx, delays) first, then authentication, routing and validation, then the service
 * itself; lost and malformed answers happen on the way back.
 */
export async function serveProviderRequest(
  runtime: SimulatorRuntime,
  request: ProviderRequest,
): Promise<void> {
  const { req, res } = request;
  const method = req.method ?? 'GET';
  const match =
    request.path === null ? { kind: 'unknown' as const } : matchRoute(SIMULATOR_ROUTES, method, request.path);
  const endpoint = match.kind === 'unknown' ? 'unknown' : match.route.endpoint;
  runtime.counters.received(endpoint);
  const body = await receiveBody(req, bodyLimit(runtime.options));
  const options = runtime.options;
  const presenter = presenterForDialect(
    options.dialect,
    createResourceLinks(options.publicOrigin ?? request.origin, options.basePath),
  );
  const answer = (status: number, json: unknown, headers: Headers = {}) => {
    runtime.counters.answered(status);
    sendJson(res, status, json, headers);
  };
  const refuse = (status: number, message: string, headers: Headers = {}) =>
    answer(status, presenter.error(message), headers);

  const rate = runtime.takeRateToken();
  if (!rate.allowed) {
    refuse(429, 'rate limit exceeded; retry later', { 'Retry-After': String(rate.retryAfterSeconds) });
    return;
  }

  const faults: FaultPlan = match.kind === 'unknown' ? NO_FAULTS : runtime.planFaults(match.route.endpoint);
  if (faults.serverError !== null) {
    const { status, body: kind } = faults.serverError;
    runtime.counters.fault('serverErrors');
    runtime.counters.answered(status);
    if (kind === 'html') sendBytes(res, status, 'text/html', gatewayErrorPage(status));
    else if (kind === 'empty') sendEmpty(res, status);
    else sendJson(res, status, presenter.error('service temporarily unavailable'));
    return;
  }
  if (faults.delayMs > 0) {
    runtime.counters.fault('slowResponses');
    try {
      await delay(faults.delayMs, undefined, { signal: request.shutdown });
    } catch {
      req.socket.destroy();
      return;
    }
  }

  const auth = isAuthorized(req, options.apiKey);
  if (auth !== 'ok') {
    const message =
      auth === 'missing' ? 'missing Authorization header (Bearer <API_KEY>)' : 'invalid API key';
    refuse(401, message, { 'WWW-Authenticate': 'Bearer' });
    return;
  }
  if (match.kind === 'unknown') {
    const where = request.path === null ? ` (paths start with ${options.basePath})` : '';
    refuse(404, `no endpoint ${method} ${req.url ?? ''}${where}`);
    return;
  }
  if (match.kind === 'wrong-method') {
    refuse(405, `${method} is not allowed here; use ${match.allowed.join(', ')}`, {
      Allow: match.allowed.join(', '),
    });
    return;
  }
  if (body.oversize) {
    refuse(413, `request body exceeds ${bodyLimit(options)} bytes`);
    return;
  }
  const json =
    match.route.method === 'POST' ? parseJson(body.bytes) : { ok: true as const, value: undefined };
  if (!json.ok) {
    refuse(400, 'request body is not valid JSON');
    return;
  }

  const mutationsBefore = runtime.store.mutationCount;
  let result: HandlerResult;
  try {
    result = match.route.handler({
      store: runtime.store,
      options,
      now: runtime.now(),
      presenter,
      params: match.params,
      body: json.value,
    });
  } catch (err) {
    if (!(err instanceof SimulatorRefusal)) throw err;
    persistIfChanged(runtime, mutationsBefore, 'soon');
    refuse(err.status, err.message, err.headers);
    return;
  }
  const isWrite = match.route.writes;
  persistIfChanged(runtime, mutationsBefore, isWrite ? 'now' : 'soon');

  if (faults.loseResponse && isWrite) {
    runtime.counters.fault('lostResponses');
    req.socket.destroy();
    return;
  }
  if (faults.malformedJson) {
    runtime.counters.fault('malformedJson');
    runtime.counters.answered(result.status);
    sendTruncatedJson(res, result.status, result.body);
    return;
  }
  answer(result.status, result.body);
}

function persistIfChanged(runtime: SimulatorRuntime, mutationsBefore: number, urgency: 'now' | 'soon'): void {
  if (runtime.store.mutationCount !== mutationsBefore) runtime.persist(urgency);
}

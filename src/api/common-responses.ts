import type { FastifyInstance, FastifySchema } from 'fastify';
import { errorBodySchema } from './api-error';

/** Methods whose requests may carry a body, which is then parsed (and can be refused) before the handler. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The answers every route can give whatever it does, declared on each route that can give them (in
 * its schema, so the OpenAPI document lists them and they are serialized like the route's own), so
 * no route repeats them: a route's own description of a status wins. Call before any route is added.
 *
 * - 401 on a route behind bearer tokens;
 * - 429 under /v1, where the per-token rate limit applies;
 * - 422 on a route whose parameters, query, headers or body are validated by their schema (unless
 *   the route answers validation errors itself: attachValidation), and
 *   400 on a route with path parameters (a path that is not valid percent-encoded UTF-8);
 * - 400, 413 and 415 on a method that may carry a body (malformed, too large, not JSON or multipart).
 */
export function declareCommonResponses(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as (FastifySchema & { hide?: boolean; security?: unknown }) | undefined;
    if (!schema || schema.hide) return;
    const response = { ...(schema.response as Record<string, unknown> | undefined) };
    const declare = (status: number, description: string) => {
      response[status] ??= errorBodySchema.describe(description);
    };
    if (schema.security) declare(401, 'Missing or wrong bearer token');
    if (route.url.startsWith('/v1/'))
      declare(429, 'Too many requests with this token (API_RATE_LIMIT_PER_MINUTE); retry later');
    if (schema.params) declare(400, 'The path is not valid percent-encoded UTF-8');
    // A route that attaches validation errors to the request answers them itself.
    if ((schema.params || schema.querystring || schema.headers || schema.body) && !route.attachValidation)
      declare(422, 'A parameter, header or field breaks its schema, with its path');
    if ([route.method].flat().some((method) => BODY_METHODS.has(method.toUpperCase()))) {
      declare(400, 'Malformed request: the body is not what its Content-Type says');
      declare(413, 'The request body is too large');
      declare(415, 'The body is neither JSON nor multipart/form-data');
    }
    route.schema = { ...schema, response };
  });
}

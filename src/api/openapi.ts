import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { campaignRequestBodyDocs } from '../campaign/api/request-docs';
import { pipelineRequestBodyDocs, trainingRequestBodyDocs } from './pipeline-request-docs';
import { webhookDocs } from './webhook-docs';

export const BEARER_SCHEME = 'bearerAuth';
/** A browser access token given in the query (it may come as the bearer token too). */
export const ACCESS_TOKEN_SCHEME = 'accessToken';

/** How callers authenticate, as the document's introduction tells it. */
const AUTH_DESCRIPTION = [
  'Two kinds of token:',
  '',
  '- **API tokens** (`API_TOKENS`), sent as `Authorization: Bearer <token>`. Each belongs to a tenant (`tenant:token`; a bare token is tenant `default`) and every route sees only that tenant. A token holds its tenant\u2019s scopes (`API_TENANTS_FILE`, default all four): `start` (start pipelines, trainings, generations, campaigns), `read` (list, status, events, models, orders, results, and issuing browser access tokens), `cancel` (cancel, retry, pause, resume) and `erase` (erase subjects). A route names the scope it needs; a token without it is answered 403.',
  '- **Browser access tokens**, from `POST /v1/pipelines/{id}/access-tokens` or `POST /v1/campaigns/{id}/access-tokens`: read-only, for that one run, expiring (default 1 h, at most 24 h). Sent as the bearer token or as `?access_token=`, they open the run\u2019s status and its event stream (its archived avatar links need no token); on another run they get the answer of an unknown id, on any other route 401.',
].join('\n');

/**
 * OpenAPI 3 generated from the routes' zod schemas, served at GET /openapi.json, with Swagger UI
 * at /docs. Both are public: they describe the API and hold no secrets.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  options: { version: string; maxFileBytes: number },
): Promise<void> {
  // Bodies the handlers read and validate themselves, documented here, by route.
  const bodies: Record<string, object> = {
    'POST /v1/pipelines': pipelineRequestBodyDocs(options.maxFileBytes),
    'POST /v1/models': trainingRequestBodyDocs(),
    'POST /v1/campaigns': campaignRequestBodyDocs(),
  };
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'avatar-pipeline workflow starter API',
        description: `Starts durable avatar pipelines on Temporal (selfies → trained model → avatars per style), reports their progress and results, and cancels them.\n\n${AUTH_DESCRIPTION}`,
        version: options.version,
      },
      components: {
        securitySchemes: {
          [BEARER_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API token, or on the routes that accept one, a browser access token',
          },
          [ACCESS_TOKEN_SCHEME]: {
            type: 'apiKey',
            in: 'query',
            name: 'access_token',
            description:
              'A browser access token (POST …/access-tokens), on the routes of its run that accept one',
          },
        },
      },
    },
    transform: (document) => {
      const transformed = jsonSchemaTransform(document);
      const body = bodies[`${String(document.route.method)} ${document.url}`];
      if (body) return { ...transformed, schema: { ...transformed.schema, body } };
      if (document.url.endsWith('/events')) return asEventStream(transformed);
      if (LIVE_LISTS.has(document.url)) return asJsonOrEventStream(transformed);
      if (document.url.startsWith('/archive/')) return asImage(transformed);
      if (document.url.endsWith('/results.csv')) return asText(transformed, 'text/csv', 'CSV rows');
      if (document.url.endsWith('/results.jsonl'))
        return asText(transformed, 'application/x-ndjson', 'One JSON object per line');
      return transformed;
    },
    transformObject: (document) => ({
      ...withoutUnusedSchemas(jsonSchemaTransformObject(document)),
      'x-webhooks': webhookDocs(),
    }),
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}

/** The lists that answer a live stream when asked for text/event-stream (live-lists.ts). */
const LIVE_LISTS = new Set(['/v1/pipelines', '/v1/campaigns']);

/** A live list's 200 answer: JSON, or text/event-stream whose every event's `data` is that same JSON. */
function asJsonOrEventStream<T extends { schema: object }>(transformed: T): T {
  const schema = transformed.schema as { response?: Record<string, { description?: string }> };
  const ok = schema.response?.['200'];
  if (!ok) return transformed;
  const { description, ...data } = ok;
  const content = { 'application/json': { schema: data }, 'text/event-stream': { schema: data } };
  return {
    ...transformed,
    schema: { ...schema, response: { ...schema.response, 200: { description, content } } },
  };
}

/** An event stream's 200 answer is text/event-stream; its schema describes each event's `data`. */
function asEventStream<T extends { schema: object }>(transformed: T): T {
  const schema = transformed.schema as { response?: Record<string, { description?: string }> };
  const ok = schema.response?.['200'];
  if (!ok) return transformed;
  const { description, ...data } = ok;
  const response = {
    ...schema.response,
    200: { description, content: { 'text/event-stream': { schema: data } } },
  };
  return { ...transformed, schema: { ...schema, response } };
}

/** An archived avatar's 200 answer is the image's bytes. */
function asImage<T extends { schema: object }>(transformed: T): T {
  const schema = transformed.schema as { response?: Record<string, { description?: string }> };
  const ok = schema.response?.['200'];
  if (!ok) return transformed;
  const binary = { schema: { type: 'string', format: 'binary' } };
  const response = {
    ...schema.response,
    200: { description: ok.description, content: { 'image/png': binary, 'image/jpeg': binary } },
  };
  return { ...transformed, schema: { ...schema, response } };
}

/** A 200 answer streamed as text (its errors stay JSON, as every route's). */
function asText<T extends { schema: object }>(transformed: T, mediaType: string, description: string): T {
  const schema = transformed.schema as { response?: Record<string, unknown> };
  const ok = { description, content: { [mediaType]: { schema: { type: 'string' } } } };
  return { ...transformed, schema: { ...schema, response: { 200: ok, ...schema.response } } };
}

/**
 * Every named zod schema is emitted twice, as request (`…Input`) and response shape; keep only
 * the component schemas the document refers to.
 */
function withoutUnusedSchemas<
  T extends { paths?: unknown; components?: { schemas?: Record<string, unknown> } },
>(document: T): T {
  const schemas = document.components?.schemas;
  if (!schemas) return document;
  const used = new Set<string>();
  const pending = [JSON.stringify(document.paths ?? {})];
  while (pending.length > 0) {
    for (const match of pending.pop()!.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = match[1]!;
      if (!used.has(name) && schemas[name]) {
        used.add(name);
        pending.push(JSON.stringify(schemas[name]));
      }
    }
  }
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  return { ...document, components: { ...document.components, schemas: kept } };
}

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  MAX_ACCESS_TOKEN_TTL_SECONDS,
  type RunKind,
} from '../access-tokens';
import { errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { known } from '../../campaign/api/known-campaign';
import { BEARER_SCHEME } from '../openapi';
import { describePipeline } from '../pipeline-view';

const grantBodySchema = z
  .strictObject({
    ttlSeconds: z
      .number()
      .int('must be a whole number of seconds')
      .positive('must be greater than 0')
      .max(MAX_ACCESS_TOKEN_TTL_SECONDS, `must be at most ${MAX_ACCESS_TOKEN_TTL_SECONDS} (24 hours)`)
      .optional()
      .describe(`How long the token works, in seconds (default ${DEFAULT_ACCESS_TOKEN_TTL_SECONDS})`),
  })
  // A POST without a body arrives as null.
  .nullish();

const grantSchema = z
  .object({
    token: z.string().describe('Send as `Authorization: Bearer <token>` or as `?access_token=<token>`'),
    expiresAt: z.iso.datetime().describe('When the token stops working'),
  })
  .meta({ id: 'AccessToken' });

/**
 * POST /v1/pipelines/{id}/access-tokens and POST /v1/campaigns/{id}/access-tokens: a browser access
 * token for that one run (access-tokens.ts), for an app to hand to its end user's browser so it
 * can watch the run without the app's API token. Issued only for a run the caller can see (404
 * otherwise, as for any unknown id); needs the `read` scope (route-access.ts).
 */
export function registerAccessTokenRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const exists: Record<RunKind, (tenant: string, id: string) => Promise<unknown>> = {
    pipeline: (tenant, id) => describePipeline(ctx.client, tenant, id),
    campaign: (tenant, id) => known(ctx.client, tenant, id),
  };
  for (const kind of ['pipeline', 'campaign'] as const) {
    app.withTypeProvider<ZodTypeProvider>().route({
      method: 'POST',
      url: `/${kind}s/:id/access-tokens`,
      schema: {
        summary: `A browser access token for this ${kind}: read-only, this run only, expiring`,
        description: `The token opens GET /v1/${kind}s/{id} and GET /v1/${kind}s/{id}/events${kind === 'campaign' ? ', its summary and its results (results.csv, results.jsonl)' : ', its styles\u2019 avatars as zips'} of this ${kind} only, as the bearer token or as \`?access_token=\`; its archived avatar links need no token. Another run answers as an unknown id, any other route 401. It expires after ttlSeconds (default 1 hour, at most 24 hours) and stops working when the run is erased. It holds the tenant, the run (as a digest) and the expiry, signed with API_ACCESS_TOKEN_SECRET.`,
        tags: [`${kind}s`],
        security: [{ [BEARER_SCHEME]: [] }],
        params: z.object({
          id: z
            .string()
            .min(1)
            .max(300)
            .describe(`The ${kind}\u2019s id (${kind === 'pipeline' ? 'workflowId' : 'campaignId'})`),
        }),
        body: grantBodySchema,
        response: {
          201: grantSchema.describe('The token and its expiry'),
          401: errorBodySchema,
          404: errorBodySchema.describe(`No ${kind} with this id`),
        },
      },
      handler: async (request, reply) => {
        const { id } = request.params;
        await exists[kind](request.caller.tenant, id);
        const ttlSeconds = request.body?.ttlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_SECONDS;
        const { token, expiresAtMs } = ctx.accessTokens.mint({
          tenant: request.caller.tenant,
          kind,
          runId: id,
          expiresAtMs: Date.now() + ttlSeconds * 1000,
        });
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .send({ token, expiresAt: new Date(expiresAtMs).toISOString() });
      },
    });
  }
}

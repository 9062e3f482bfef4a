import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CONSOLE_PATH } from '../../console/console-location';
import { DEFAULT_REVIEW_LINK_TTL_SECONDS, MAX_REVIEW_LINK_TTL_SECONDS } from '../access-tokens';
import { ApiError, errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { reviewerOfAccessToken } from '../caller-auth';
import { BEARER_SCHEME } from '../openapi';
import { pipelineStatus } from '../pipeline-view';
import { pipelineIdParamsSchema } from '../response-schemas';
import { archiveOrigin } from './pipeline-status';

const linkBodySchema = z
  .strictObject({
    ttlSeconds: z
      .number()
      .int('must be a whole number of seconds')
      .positive('must be greater than 0')
      .max(MAX_REVIEW_LINK_TTL_SECONDS, `must be at most ${MAX_REVIEW_LINK_TTL_SECONDS} (7 days)`)
      .optional()
      .describe(`How long the link works, in seconds (default ${DEFAULT_REVIEW_LINK_TTL_SECONDS}: 72 hours)`),
  })
  // A POST without a body arrives as null.
  .nullish();

const reviewLinkSchema = z
  .object({
    url: z
      .string()
      .describe(
        'The console\u2019s review page for this run, the token in its fragment (never sent to a server)',
      ),
    token: z
      .string()
      .describe('The same token, for an app with a review page of its own (bearer or `?access_token=`)'),
    expiresAt: z.iso.datetime().describe('When the link stops working'),
    reviewer: z
      .string()
      .describe(
        'How the run\u2019s review answers and audit lines name decisions sent with this link (`link:…`)',
      ),
  })
  .meta({ id: 'ReviewLink' });

/**
 * POST /v1/pipelines/{id}/review-links: a signed, expiring link for a reviewer without an API
 * token. Its token is a browser access token for this run that may also send decisions
 * (access-tokens.ts, `a: "review"`); the gate itself refuses decisions once the review is done.
 */
export function registerReviewLinkRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'POST',
    url: '/pipelines/:id/review-links',
    schema: {
      summary: 'A review link for this run: its review page, no API token needed, expiring',
      description: [
        'For a running run started with `review: { required: true }` whose review is not done. The link',
        'opens the console\u2019s review page for this run only; its token reads this run',
        '(GET /v1/pipelines/{id} and …/events) and sends decisions (POST /v1/pipelines/{id}/review), and',
        'nothing else: another run answers as an unknown id. It works until it expires (ttlSeconds,',
        'default 72 hours, at most 7 days) or the review is done, and decisions sent with it are audited',
        'as `reviewer`.',
      ].join(' '),
      tags: ['pipelines'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: pipelineIdParamsSchema,
      body: linkBodySchema,
      response: {
        201: reviewLinkSchema.describe('The link and its expiry'),
        401: errorBodySchema,
        404: errorBodySchema.describe('No pipeline with this id'),
        409: errorBodySchema.describe(
          'The run has ended, was not started with review, or its review is done',
        ),
      },
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const { tenant } = request.caller;
      const status = await pipelineStatus(ctx.client, tenant, id, ctx.links(id));
      if (status.state !== 'running' && status.state !== 'awaiting-review')
        throw new ApiError(409, `Pipeline ${id} has already ended (${status.state})`, []);
      const review = status.progress?.review;
      if (review === undefined) throw new ApiError(409, `Pipeline ${id} was not started with review`, []);
      if (review.state === 'closed') throw new ApiError(409, `The review of pipeline ${id} is done`, []);
      const ttlSeconds = request.body?.ttlSeconds ?? DEFAULT_REVIEW_LINK_TTL_SECONDS;
      const { token, expiresAtMs } = ctx.accessTokens.mint({
        tenant,
        kind: 'pipeline',
        runId: id,
        expiresAtMs: Date.now() + ttlSeconds * 1000,
        review: true,
      });
      const page = `#/review/${encodeURIComponent(id)}?access_token=${encodeURIComponent(token)}`;
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({
          url: `${archiveOrigin(ctx, request)}${CONSOLE_PATH}${page}`,
          token,
          expiresAt: new Date(expiresAtMs).toISOString(),
          reviewer: reviewerOfAccessToken(token),
        });
    },
  });
}

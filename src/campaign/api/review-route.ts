import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { submitCampaignReviews } from '@avatar-pipeline/client/client/campaign-reviews';
import { campaignReviewsSchema, reviewProgressSchema } from '@avatar-pipeline/client/contracts/review';
import { ApiError, errorBodySchema } from '../../api/api-error';
import type { ApiContext } from '../../api/api-context';
import { idempotencyKeySchema } from '../../api/idempotency';
import { BEARER_SCHEME } from '../../api/openapi';
import { known } from './known-campaign';

const batchAnswerSchema = z
  .object({
    campaignId: z.string(),
    reviewer: z.string().describe('The credential that decided, as its digest (`token:…`); never the token'),
    decided: z.number().describe('Runs whose decisions were taken'),
    unchanged: z
      .number()
      .describe('Runs with nothing left to decide for a whole-run `decision` (decided already, or ended)'),
    refused: z.number().describe('Runs that took none (each named in results, with its fields)'),
    results: z.array(
      z.object({
        workflowId: z.string(),
        effect: z.enum(['decided', 'unchanged', 'refused']),
        decided: z.number().describe('Decisions taken now or kept (repeats left out)'),
        issues: z
          .array(z.object({ path: z.string(), message: z.string() }))
          .optional()
          .describe('Why the run took nothing: `reviews.<n>.<field>`'),
        review: reviewProgressSchema.optional().describe('The run\u2019s gate after the decisions'),
      }),
    ),
  })
  .meta({ id: 'CampaignReviewsDecided' });

/**
 * POST /v1/campaigns/{id}/reviews: decisions for many of a campaign's runs held for review, in one
 * request. Which runs wait: GET /v1/pipelines?campaignId=…&status=awaiting-review, or the
 * campaign's progress (`awaitingReview`).
 */
export function registerCampaignReviewRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'POST',
    url: '/campaigns/:id/reviews',
    schema: {
      summary: 'Decide on many of a campaign\u2019s runs held for review at once',
      description: [
        `Up to 100 runs, each with its decisions (as POST /v1/pipelines/{id}/review takes them) or one`,
        '`decision` (approve or reject) for every style it has under review. Each run is decided on its',
        'own: one that refuses, or is not the campaign\u2019s, is answered `refused` with its fields named',
        'and touches no other. With an Idempotency-Key, the same batch again decides nothing twice.',
        'Runs waiting: GET /v1/pipelines?campaignId={id}&status=awaiting-review.',
      ].join(' '),
      tags: ['campaigns'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: z.object({
        id: z.string().min(1).max(300).describe('The campaignId answered by POST /v1/campaigns'),
      }),
      headers: z.looseObject({ 'idempotency-key': idempotencyKeySchema.optional() }),
      body: campaignReviewsSchema,
      response: {
        200: batchAnswerSchema.describe('Each run\u2019s outcome'),
        401: errorBodySchema,
        404: errorBodySchema.describe('No campaign with this id'),
        409: errorBodySchema.describe('The campaign has ended'),
        422: errorBodySchema.describe('The batch is malformed, with its paths; nothing was decided'),
      },
    },
    handler: async (request) => {
      const { id } = request.params;
      const status = await known(ctx.client, request.caller.tenant, id);
      if (status !== 'RUNNING')
        throw new ApiError(409, `Campaign ${id} has ended (${status.toLowerCase()})`, []);
      const reviewer = request.credentialKey;
      const key = request.headers['idempotency-key'];
      const results = await submitCampaignReviews(ctx.client, id, request.body, {
        reviewer: { via: reviewer },
        ...(key ? { requestId: `${reviewer}/${key}` } : {}),
      });
      const count = (effect: (typeof results)[number]['effect']) =>
        results.filter((r) => r.effect === effect).length;
      return {
        campaignId: id,
        reviewer,
        decided: count('decided'),
        unchanged: count('unchanged'),
        refused: count('refused'),
        results,
      };
    },
  });
}

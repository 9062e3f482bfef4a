import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { submitReview } from '@avatar-pipeline/client/client/review';
import {
  reviewDecisionsSchema,
  reviewProgressSchema,
  type ReviewDecision,
} from '@avatar-pipeline/client/contracts/review';
import { ApiError, errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { idempotencyKeySchema } from '../idempotency';
import { BEARER_SCHEME } from '../openapi';
import { describePipeline, stateOf } from '../pipeline-view';
import { linksSchema, pipelineIdParamsSchema } from '../response-schemas';

const reviewAnswerSchema = z
  .object({
    workflowId: z.string(),
    reviewer: z
      .string()
      .describe(
        'The credential that decided, as its digest: `token:…` for an API token, `link:…` for a review link; never the token',
      ),
    decided: z.array(z.string()).describe('The decisions this request took, in words (repeats left out)'),
    results: z.array(
      z.object({
        index: z.number().describe('The decision\u2019s place in `decisions`'),
        effect: z
          .enum(['applied', 'kept', 'repeated'])
          .describe(
            'applied: taken now; kept: waits for the style\u2019s avatars; repeated: the same decision was taken before',
          ),
      }),
    ),
    review: reviewProgressSchema,
    links: linksSchema,
  })
  .meta({ id: 'ReviewDecided' });

export function registerReviewPipelineRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'POST',
    url: '/pipelines/:id/review',
    schema: {
      summary: 'Decide on a run held for review',
      description: [
        'For a run started with `review: { required: true }`: approve, reject or regenerate each style',
        '(or approve and reject single avatars with `avatarId`). Decisions may come before the run is',
        'generated: one on a whole style is kept until its avatars are in. The same decision twice is one',
        'decision; with an Idempotency-Key, a repeated request is answered as the first was.',
        'A decision that names nothing under review is refused (422, naming its field) and then none is taken.',
      ].join(' '),
      tags: ['pipelines'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: pipelineIdParamsSchema,
      headers: z.looseObject({ 'idempotency-key': idempotencyKeySchema.optional() }),
      body: reviewDecisionsSchema,
      response: {
        200: reviewAnswerSchema.describe('The decisions were taken'),
        401: errorBodySchema,
        404: errorBodySchema.describe('No pipeline with this id'),
        409: errorBodySchema.describe('The run has already ended'),
        422: errorBodySchema.describe(
          'A decision names nothing under review, or is malformed, with its path',
        ),
      },
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const description = await describePipeline(ctx.client, request.caller.tenant, id);
      const state = stateOf(description);
      if (state !== 'running') throw new ApiError(409, `Pipeline ${id} has already ended (${state})`, []);
      const reviewer = request.credentialKey;
      const key = request.headers['idempotency-key'];
      const answer = await submitReview(ctx.client, id, request.body, {
        reviewer: { via: reviewer },
        // Update ids are per run: the key is the caller's, so one caller's key never meets another's.
        ...(key ? { requestId: `${reviewer}/${key}` } : {}),
      });
      const decided = request.body.decisions
        .filter((_, i) => answer.results[i]?.effect !== 'repeated')
        .map(describeDecision);
      return reply.code(200).send({ workflowId: id, reviewer, decided, ...answer, links: ctx.links(id) });
    },
  });
}

/** `approve style 7`, `reject style 7 avatar 101`: an audit line's words for a decision. */
function describeDecision(d: ReviewDecision): string {
  return `${d.decision} style ${d.styleId}${d.avatarId !== undefined ? ` avatar ${d.avatarId}` : ''}`;
}

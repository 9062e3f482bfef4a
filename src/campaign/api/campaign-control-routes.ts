import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { InputError } from '@avatar-pipeline/client/errors';
import { ApiError, errorBodySchema } from '../../api/api-error';
import type { ApiContext } from '../../api/api-context';
import { BEARER_SCHEME } from '../../api/openapi';
import { campaignHandle, campaignIdParams, known } from './known-campaign';
import { campaignProgressSchema } from './schemas';

const ACTION_SUMMARIES = {
  pause: 'Pause: start no more subjects (running ones finish)',
  resume: 'Resume after a pause',
  cancel: 'Cancel the running subjects and start no more; the campaign ends with its summary',
} as const;

/**
 * POST /v1/campaigns/{id}/pause, …/resume and …/cancel (of a running campaign), and
 * POST /v1/campaigns/{id}/retry (its failed or cancelled subjects, running or ended).
 */
export function registerCampaignControlRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const security = [{ [BEARER_SCHEME]: [] }];

  for (const action of ['pause', 'resume', 'cancel'] as const) {
    api.route({
      method: 'POST',
      url: `/campaigns/:id/${action}`,
      schema: {
        summary: ACTION_SUMMARIES[action],
        tags: ['campaigns'],
        security,
        params: campaignIdParams,
        response: {
          200: campaignProgressSchema,
          401: errorBodySchema,
          404: errorBodySchema,
          409: errorBodySchema,
        },
      },
      handler: async (request) => {
        const { id } = request.params;
        const campaign = campaignHandle(ctx, id);
        const status = await known(ctx.client, request.caller.tenant, id);
        if (status !== 'RUNNING') throw new ApiError(409, `Campaign ${id} is not running (${status})`, []);
        return campaign[action]();
      },
    });
  }

  api.route({
    method: 'POST',
    url: '/campaigns/:id/retry',
    schema: {
      summary: 'Run failed or cancelled subjects again',
      description:
        'All of them, or the subjectIds given. While the campaign runs they join its queue; a campaign that ended restarts under its id for them.',
      tags: ['campaigns'],
      security,
      params: campaignIdParams,
      body: z.strictObject({ subjectIds: z.array(z.string().min(1)).min(1).optional() }).optional(),
      response: {
        202: z.object({ queued: z.number(), progress: campaignProgressSchema }),
        401: errorBodySchema,
        404: errorBodySchema,
        409: errorBodySchema,
        422: errorBodySchema,
      },
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const campaign = campaignHandle(ctx, id);
      await known(ctx.client, request.caller.tenant, id);
      try {
        const report = await campaign.retry(request.body?.subjectIds);
        return await reply.code(202).send({ queued: report.queued.length, progress: report.progress });
      } catch (err) {
        if (err instanceof InputError) throw ApiError.fromInputError(err);
        if (err instanceof Error && /only a running or completed campaign/.test(err.message))
          throw new ApiError(409, err.message, []);
        throw err;
      }
    },
  });
}

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBodySchema } from '../../api/api-error';
import type { ApiContext } from '../../api/api-context';
import { BEARER_SCHEME } from '../../api/openapi';
import { campaignHandle, campaignIdParams, campaignLinks, known, knownCampaign } from './known-campaign';
import { campaignStatusSchema, campaignSummarySchema } from './schemas';

/** GET /v1/campaigns/{id} (state and progress) and GET /v1/campaigns/{id}/summary (every subject). */
export function registerCampaignStatusRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const security = [{ [BEARER_SCHEME]: [] }];

  api.route({
    method: 'GET',
    url: '/campaigns/:id',
    schema: {
      summary: 'State and progress of a campaign',
      description: 'Counts by state, in-flight subjects, throughput and estimated finish.',
      tags: ['campaigns'],
      security,
      params: campaignIdParams,
      response: { 200: campaignStatusSchema, 401: errorBodySchema, 404: errorBodySchema },
    },
    handler: async (request) => {
      const { id } = request.params;
      const campaign = campaignHandle(ctx, id);
      // One describe answers both: the tenant check and status, and the progress in the memo.
      const description = await knownCampaign(ctx.client, request.caller.tenant, id);
      const progress = await campaign.progress(description).catch(() => undefined);
      return {
        campaignId: id,
        status: description.status.name,
        ...(progress ? { progress } : {}),
        links: campaignLinks(id),
      };
    },
  });

  api.route({
    method: 'GET',
    url: '/campaigns/:id/summary',
    schema: {
      summary: 'The campaign summary: every subject with its status, model, avatar count and error',
      description: 'While the campaign runs, the subjects finished so far (the others PENDING).',
      tags: ['campaigns'],
      security,
      params: campaignIdParams,
      response: { 200: campaignSummarySchema, 401: errorBodySchema, 404: errorBodySchema },
    },
    handler: async (request) => {
      const campaign = campaignHandle(ctx, request.params.id);
      await known(ctx.client, request.caller.tenant, request.params.id);
      return campaign.summary();
    },
  });
}

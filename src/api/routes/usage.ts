import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { readUsage } from '@avatar-pipeline/client/client/budget';
import { usageSchema } from '@avatar-pipeline/client/contracts/usage';
import { knownCampaign } from '../../campaign/api/known-campaign';
import { pricingOf } from '../../config/tenants';
import { errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { BEARER_SCHEME } from '../openapi';

const usageQuerySchema = z.object({
  campaignId: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .describe(
      'Only this campaign of the caller\u2019s in `byCampaign`; another tenant\u2019s is unknown (404)',
    ),
});

/** GET /v1/usage: the caller's tenant's budget, what is spent and reserved, what is left. */
export function registerUsageRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/usage',
    schema: {
      summary: 'Usage and budget of the caller\u2019s tenant',
      description: [
        'Credits of provider work in the current period (a calendar month, UTC, or `all` for a budget',
        'without a period), as API_TENANTS_FILE prices it: spent (orders made, by kind and by campaign),',
        'reserved (what unfinished runs may still spend), the budget and what is left of it.',
        'Without `costs` in the tenants file nothing is metered and every figure is 0.',
      ].join(' '),
      tags: ['usage'],
      security: [{ [BEARER_SCHEME]: [] }],
      querystring: usageQuerySchema,
      response: {
        200: usageSchema.meta({ id: 'Usage' }).describe('The tenant\u2019s usage'),
        401: errorBodySchema,
        404: errorBodySchema.describe('No campaign of the caller\u2019s has this id'),
      },
    },
    handler: async (request) => {
      const { tenant } = request.caller;
      const { campaignId } = request.query;
      if (campaignId !== undefined) await knownCampaign(ctx.client, tenant, campaignId);
      const usage = await readUsage(ctx.client, tenant, pricingOf(ctx.config, tenant)?.budget);
      if (campaignId === undefined) return usage;
      return {
        ...usage,
        byCampaign: { [campaignId]: usage.byCampaign[campaignId] ?? { orders: 0, credits: 0 } },
      };
    },
  });
}

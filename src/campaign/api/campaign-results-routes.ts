import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { errorBodySchema } from '../../api/api-error';
import type { ApiContext } from '../../api/api-context';
import { BEARER_SCHEME } from '../../api/openapi';
import { exportResults } from '../export-results';
import { campaignHandle, campaignIdParams, known } from './known-campaign';

/** GET /v1/campaigns/{id}/results.csv and …/results.jsonl: every avatar so far, streamed. */
export function registerCampaignResultsRoutes(app: FastifyInstance, ctx: ApiContext): void {
  for (const format of ['csv', 'jsonl'] as const) {
    // Untyped route: the body is a stream (never serialized), which the typed reply would not accept.
    app.route<{ Params: z.infer<typeof campaignIdParams> }>({
      method: 'GET',
      url: `/campaigns/:id/results.${format}`,
      schema: {
        summary: `Every avatar so far as ${format.toUpperCase()}: subject, style, avatar id, image URL`,
        tags: ['campaigns'],
        security: [{ [BEARER_SCHEME]: [] }],
        params: campaignIdParams,
        response: { 401: errorBodySchema, 404: errorBodySchema },
      },
      handler: async (request, reply) => {
        const campaign = campaignHandle(ctx, request.params.id);
        await known(ctx.client, request.caller.tenant, request.params.id);
        return reply
          .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
          .header('content-disposition', `attachment; filename="${request.params.id}-results.${format}"`)
          .send(Readable.from(exportResults(campaign.resultRows(), format)));
      },
    });
  }
}

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CampaignProgress, FinalLedger } from '@avatar-pipeline/client/contracts/campaign/campaign';
import type { ApiContext } from '../../api/api-context';
import {
  END_EVENT_ID,
  lastEventIdSchema,
  progressEventSchema,
  progressEventsDescription,
  progressEventsResponses,
  resumePoint,
  streamProgressEvents,
} from '../../api/event-stream';
import { BEARER_SCHEME } from '../../api/openapi';
import { campaignHandle, campaignIdParams, known } from './known-campaign';
import { campaignProgressSchema, campaignSummarySchema } from './schemas';

/** What each event's `data` holds, by event name; documented as the stream's schema. */
const campaignStreamEventSchema = progressEventSchema(
  'CampaignStreamEvent',
  campaignProgressSchema,
  campaignSummarySchema,
  'campaign',
);

/** GET /v1/campaigns/{id}/events: the campaign's progress as Server-Sent Events, ending with its summary. */
export function registerCampaignEventsRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/campaigns/:id/events',
    schema: {
      summary: 'Live progress of a campaign (Server-Sent Events)',
      description: progressEventsDescription('campaign', 'its summary'),
      tags: ['campaigns'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: campaignIdParams,
      headers: z.looseObject({ 'last-event-id': lastEventIdSchema }),
      response: progressEventsResponses('campaign', campaignStreamEventSchema),
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const after = resumePoint(request);
      const campaign = campaignHandle(ctx, id);
      await known(ctx.client, request.caller.tenant, id);
      if (after === END_EVENT_ID) return reply.code(204).send(null);
      await streamProgressEvents<CampaignProgress, FinalLedger>(request, reply, ctx.progressHub, id, {
        afterVersion: after,
        // The campaign's result is compact; the stream ends with its summary, as GET …/summary answers it.
        presentResult: () => campaign.summary(),
        // Snapshots may predate an erasure: shown as GET /campaigns/{id} shows progress.
        presentProgress: (progress) => campaign.visibleProgress(progress),
      });
    },
  });
}

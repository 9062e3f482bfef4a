import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_LIST_LIMIT } from '@avatar-pipeline/client/client/list-pipelines';
import { ApiError, errorBodySchema } from '../../api/api-error';
import type { ApiContext } from '../../api/api-context';
import { wantsEventStream } from '../../api/event-stream';
import { LIVE_LIST_DESCRIPTION } from '../../api/live-lists';
import { BEARER_SCHEME } from '../../api/openapi';
import { stateOfStatus } from '../../api/pipeline-view';
import { listCampaignPage } from '@avatar-pipeline/client/campaign/list-campaigns';
import { campaignListSchema } from './schemas';

/** What nextCursor looks like: a tag of the listing's query, a dot, Temporal's page token (base64url). */
const CURSOR_PATTERN = /^[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]+$/;

const listQuerySchema = z.object({
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(MAX_LIST_LIMIT, `must be at most ${MAX_LIST_LIMIT}`)
    .default(20)
    .describe('Campaigns per page'),
  cursor: z
    .union([z.literal(''), z.string().max(4096).regex(CURSOR_PATTERN, 'is not a cursor of this listing')])
    .optional()
    .describe('nextCursor of the previous page (empty: the first page)'),
});

/** What a page of the list is read for: the caller's tenant and the query. */
type CampaignListQuery = Omit<z.infer<typeof listQuerySchema>, 'cursor'> & {
  tenant: string;
  cursor?: string;
};

/** GET /v1/campaigns: the caller's tenant's campaigns, newest first, one page at a time, once or live. */
export function registerListCampaignsRoute(app: FastifyInstance, ctx: ApiContext): void {
  const read = async (query: CampaignListQuery): Promise<z.infer<typeof campaignListSchema>> => {
    const { tenant, limit, cursor } = query;
    try {
      const page = await listCampaignPage(ctx.client, { tenant, limit, ...(cursor ? { cursor } : {}) });
      return {
        campaigns: page.campaigns.map((campaign) => {
          const self = `/v1/campaigns/${encodeURIComponent(campaign.campaignId)}`;
          return {
            campaignId: campaign.campaignId,
            state: stateOfStatus(campaign.status),
            ...(campaign.total !== undefined ? { total: campaign.total } : {}),
            startedAt: campaign.startTime.toISOString(),
            ...(campaign.closeTime ? { closedAt: campaign.closeTime.toISOString() } : {}),
            links: { self, events: `${self}/events` },
          };
        }),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    } catch (err) {
      // A cursor the schema let through has the right form, so it names a page this listing never had.
      throw ApiError.fromListingError(err);
    }
  };
  const stream = ctx.liveLists.define('campaigns', read);

  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/campaigns',
    schema: {
      summary: 'List campaigns, once or live',
      description: [
        'The caller\u2019s campaigns, newest first (open ones by start time, then ended ones by end time, as Temporal\u2019s visibility store orders them), one page at a time.',
        LIVE_LIST_DESCRIPTION,
      ].join('\n\n'),
      tags: ['campaigns'],
      security: [{ [BEARER_SCHEME]: [] }],
      querystring: listQuerySchema,
      response: {
        200: campaignListSchema.describe(
          'One page of campaigns (each `list` event of the stream: the first page)',
        ),
        401: errorBodySchema.describe('Missing or wrong bearer token'),
        404: errorBodySchema.describe(
          'No such page: the cursor is not one this listing handed out (another listing\u2019s, or made up)',
        ),
        422: errorBodySchema.describe('The limit or the cursor is invalid'),
      },
    },
    handler: async (request, reply) => {
      const query = { ...request.query, tenant: request.caller.tenant };
      // Read once either way: a bad limit or cursor is answered before any stream opens.
      const page = await read(query);
      if (!wantsEventStream(request)) return page;
      await stream(request, reply, { tenant: query.tenant, limit: query.limit });
    },
  });
}

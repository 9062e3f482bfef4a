import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../../api/api-context';
import { registerCampaignControlRoutes } from './campaign-control-routes';
import { registerCampaignEventsRoute } from './campaign-events-route';
import { registerCampaignResultsRoutes } from './campaign-results-routes';
import { registerCampaignStatusRoutes } from './campaign-status-routes';
import { registerListCampaignsRoute } from './list-campaigns-route';
import { registerCampaignReviewRoute } from './review-route';
import { registerStartCampaignRoute } from './start-campaign-route';

/**
 * The campaign routes, registered inside the API's authenticated /v1 scope, a file each (or per
 * small group), in the order the OpenAPI document lists them:
 * GET /campaigns (list-campaigns-route.ts), POST /campaigns (start-campaign-route.ts),
 * GET /campaigns/:id and …/summary (campaign-status-routes.ts), GET /campaigns/:id/events
 * (campaign-events-route.ts), POST /campaigns/:id/{pause,resume,cancel,retry}
 * (campaign-control-routes.ts), GET /campaigns/:id/results.csv and results.jsonl
 * (campaign-results-routes.ts), POST /campaigns/:id/reviews (review-route.ts).
 * What they share (the id, the unknown-campaign answer, the links) is known-campaign.ts.
 */
export function registerCampaignRoutes(app: FastifyInstance, ctx: ApiContext): void {
  registerListCampaignsRoute(app, ctx);
  registerStartCampaignRoute(app, ctx);
  registerCampaignStatusRoutes(app, ctx);
  registerCampaignEventsRoute(app, ctx);
  registerCampaignControlRoutes(app, ctx);
  registerCampaignResultsRoutes(app, ctx);
  registerCampaignReviewRoute(app, ctx);
}

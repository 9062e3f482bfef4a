import type { RunKind } from './access-tokens';
import type { AuditAction } from './audit';
import type { Scope } from './caller';

/** What a `/v1` route requires of its caller, and what it is audited as. */
export interface RouteAccess {
  /** The scope a token must hold (403 without it). */
  scope: Scope;
  /**
   * A browser access token for a run of this kind is accepted too, for the run in the `id` path
   * parameter only, until it expires. Everywhere else it gets the answer for something that does
   * not exist (caller-auth.ts).
   */
  runToken?: RunKind;
  /** Only a review link's access token is accepted (access-tokens.ts, `a: "review"`); others as above. */
  reviewLinkOnly?: boolean;
  /** Logged as an audit line (audit.ts) when the route answers 2xx. */
  audit?: AuditAction;
}

const read = { scope: 'read' } as const;

/**
 * Every `/v1` route, by method and path, and what it requires: the one place scopes, access tokens
 * and audit are decided. A `/v1` route missing here stops the API from building (caller-auth.ts),
 * so no route is added without a decision. HEAD routes take their GET's entry.
 *
 * - start: start pipelines, trainings, generations and campaigns; add, remove and rotate webhook
 *   endpoints and redeliver their events;
 * - read: list, status, events, models, orders, results, usage, webhook endpoints and their
 *   delivery logs, and issue browser access tokens;
 * - cancel: cancel, retry, pause and resume runs and campaigns;
 * - erase: erase subjects;
 * - review: decide on the work of runs held for review, and mint review links for them.
 */
export const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  'POST /v1/pipelines': { scope: 'start', audit: 'pipeline.start' },
  'GET /v1/pipelines': read,
  'GET /v1/pipelines/:id': { scope: 'read', runToken: 'pipeline' },
  'GET /v1/pipelines/:id/events': { scope: 'read', runToken: 'pipeline' },
  // A shared link shows the run's avatars, and may take them home as the signed links already allow.
  'GET /v1/pipelines/:id/styles/:styleId/avatars.zip': { scope: 'read', runToken: 'pipeline' },
  'POST /v1/pipelines/:id/cancel': { scope: 'cancel', audit: 'pipeline.cancel' },
  'POST /v1/pipelines/:id/retry': { scope: 'cancel', audit: 'pipeline.retry' },
  'POST /v1/pipelines/:id/review': {
    scope: 'review',
    runToken: 'pipeline',
    reviewLinkOnly: true,
    audit: 'pipeline.review',
  },
  'POST /v1/pipelines/:id/review-links': { scope: 'review', audit: 'pipeline.review-link' },
  'POST /v1/pipelines/:id/access-tokens': { scope: 'read', audit: 'pipeline.access-token' },
  'GET /v1/styles': read,
  'GET /v1/models': read,
  'GET /v1/models/:modelId': read,
  'GET /v1/orders': read,
  'POST /v1/models': { scope: 'start', audit: 'training.start' },
  'POST /v1/models/:modelId/generations': { scope: 'start', audit: 'generation.start' },
  'DELETE /v1/subjects/:subjectId': { scope: 'erase', audit: 'subject.erase' },
  'POST /v1/campaigns': { scope: 'start', audit: 'campaign.start' },
  'GET /v1/campaigns': read,
  'GET /v1/campaigns/:id': { scope: 'read', runToken: 'campaign' },
  // A shared campaign link lists its subjects, as its results (results.csv) already name them.
  'GET /v1/campaigns/:id/summary': { scope: 'read', runToken: 'campaign' },
  'GET /v1/campaigns/:id/events': { scope: 'read', runToken: 'campaign' },
  'POST /v1/campaigns/:id/pause': { scope: 'cancel', audit: 'campaign.pause' },
  'POST /v1/campaigns/:id/resume': { scope: 'cancel', audit: 'campaign.resume' },
  'POST /v1/campaigns/:id/cancel': { scope: 'cancel', audit: 'campaign.cancel' },
  'POST /v1/campaigns/:id/retry': { scope: 'cancel', audit: 'campaign.retry' },
  'POST /v1/campaigns/:id/reviews': { scope: 'review', audit: 'campaign.review' },
  'GET /v1/campaigns/:id/results.csv': { scope: 'read', runToken: 'campaign' },
  'GET /v1/campaigns/:id/results.jsonl': { scope: 'read', runToken: 'campaign' },
  'POST /v1/campaigns/:id/access-tokens': { scope: 'read', audit: 'campaign.access-token' },
  // Webhook endpoints make the tenant's runs send events: changing them is a start-level right.
  'POST /v1/webhooks': { scope: 'start', audit: 'webhook.add' },
  'GET /v1/webhooks': read,
  'GET /v1/webhooks/:id': read,
  'DELETE /v1/webhooks/:id': { scope: 'start', audit: 'webhook.remove' },
  'POST /v1/webhooks/:id/rotate-secret': { scope: 'start', audit: 'webhook.rotate-secret' },
  'GET /v1/webhooks/:id/deliveries': read,
  'POST /v1/webhooks/:id/deliveries/:deliveryId/redeliver': { scope: 'start', audit: 'webhook.redeliver' },
  // The secret signs what the tenant's callbackUrl receives: whoever may set a callback may read it.
  'GET /v1/callbacks/secret': { scope: 'start' },
  'GET /v1/usage': read,
};

/** The entry of a route as Fastify adds it (a method or several; HEAD as its GET). */
export function routeAccessOf(method: string | string[], url: string): RouteAccess | undefined {
  const methods = [method].flat().map((m) => (m.toUpperCase() === 'HEAD' ? 'GET' : m.toUpperCase()));
  const entries = new Set(methods.map((m) => ROUTE_ACCESS[`${m} ${url}`]));
  // A route serving several methods must need the same of each, or it is not one decision.
  return entries.size === 1 ? [...entries][0] : undefined;
}

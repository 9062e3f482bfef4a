import type { FastifyBaseLogger } from 'fastify';

/**
 * The audit log: one JSON line per start, cancel, retry, erasure, token grant and webhook endpoint
 * change, written through
 * the API's logger with a fixed `"audit": true` key so operators can select them
 * (`jq -c 'select(.audit)'`). A line holds the tenant, the action and ids, nothing else: never a
 * request body, a token, a selfie reference or a subject id (an erasure is logged with the
 * subject's key in the store, the hash GET/DELETE answers show, and the runs it deleted).
 */
export type AuditAction =
  | 'pipeline.start'
  | 'pipeline.cancel'
  | 'pipeline.retry'
  | 'pipeline.access-token'
  | 'pipeline.review'
  | 'pipeline.review-link'
  | 'training.start'
  | 'generation.start'
  | 'campaign.start'
  | 'campaign.pause'
  | 'campaign.resume'
  | 'campaign.cancel'
  | 'campaign.retry'
  | 'campaign.review'
  | 'campaign.access-token'
  | 'subject.erase'
  | 'webhook.add'
  | 'webhook.remove'
  | 'webhook.rotate-secret'
  | 'webhook.redeliver';

/** The ids an audit line may hold, from a route's path parameters and its answer's body. */
export interface AuditIds {
  workflowId?: string;
  campaignId?: string;
  modelId?: number | string;
  orderId?: number;
  subject?: string;
  erasedRuns?: string[];
  expiresAt?: string;
  webhookId?: string;
  deliveryId?: string;
  /** A review's decisions (`<decision> style <id>[ avatar <id>]`) and the credential's digest that sent them. */
  decisions?: string[];
  reviewer?: string;
  /** A campaign's batch review: the runs whose decisions were taken. */
  reviewedRuns?: string[];
}

/** Writes audit lines at info level whatever LOG_LEVEL says: an audit trail is not optional. */
export function auditLog(
  log: FastifyBaseLogger,
): (tenant: string, action: AuditAction, ids: AuditIds) => void {
  const audit = log.child({ audit: true }, { level: 'info' });
  return (tenant, action, ids) => audit.info({ tenant, action, ...ids }, `audit: ${action}`);
}

/**
 * The ids of an audited request: the run (`id`, named for what the route serves) and model from the
 * path, and whatever ids the answer names: a started run's id, an erased subject's store key and
 * runs, a token's expiry. Everything else in the answer (the token itself) is left out by name.
 */
export function auditIdsOf(action: AuditAction, params: unknown, answer: unknown): AuditIds {
  const path = (params ?? {}) as Record<string, unknown>;
  const body = (answer ?? {}) as Record<string, unknown>;
  const ids: AuditIds = {};
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const idKey = action.startsWith('campaign.')
    ? 'campaignId'
    : action.startsWith('webhook.')
      ? 'webhookId'
      : 'workflowId';
  const fromPath = text(path.id);
  if (fromPath !== undefined) ids[idKey] = fromPath;
  // A registered endpoint's id comes back in the answer (never its secret, which is left out by name).
  if (action === 'webhook.add' && text(body.id) !== undefined) ids.webhookId = text(body.id);
  if (text(path.deliveryId) !== undefined) ids.deliveryId = text(path.deliveryId);
  const modelId = text(path.modelId) ?? body.modelId;
  if (typeof modelId === 'string' || typeof modelId === 'number') ids.modelId = modelId;
  if (typeof body.orderId === 'number') ids.orderId = body.orderId;
  ids.workflowId = text(body.workflowId) ?? ids.workflowId;
  ids.campaignId = text(body.campaignId) ?? ids.campaignId;
  if (text(body.subject) !== undefined) ids.subject = text(body.subject);
  if (Array.isArray(body.runs))
    ids.erasedRuns = body.runs.flatMap((run) => text((run as { workflowId?: unknown }).workflowId) ?? []);
  if (text(body.expiresAt) !== undefined) ids.expiresAt = text(body.expiresAt);
  if (Array.isArray(body.decided))
    ids.decisions = body.decided.filter((d): d is string => typeof d === 'string');
  if (text(body.reviewer) !== undefined) ids.reviewer = text(body.reviewer);
  if (action === 'campaign.review' && Array.isArray(body.results))
    ids.reviewedRuns = body.results.flatMap((r) => {
      const run = r as { workflowId?: unknown; effect?: unknown };
      return run.effect === 'decided' && typeof run.workflowId === 'string' ? [run.workflowId] : [];
    });
  return Object.fromEntries(Object.entries(ids).filter(([, v]) => v !== undefined)) as AuditIds;
}

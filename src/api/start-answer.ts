import type { FastifyReply } from 'fastify';
import type { StartedRun } from '@avatar-pipeline/client/client/start-run';
import type { ApiContext } from './api-context';
import { ApiError } from './api-error';

/** An Idempotency-Key names one request: the same key sent with a different request is refused (422). */
export function refuseReusedKey(run: StartedRun, fingerprint: string): void {
  if (!run.created && run.existingFingerprint !== undefined && run.existingFingerprint !== fingerprint) {
    throw ApiError.invalid([
      { path: 'headers.idempotency-key', message: 'was already used for a different request' },
    ]);
  }
}

/**
 * Every route that starts work answers the same way: 202 with the run's links when this request
 * started it, 200 when an earlier request with the same Idempotency-Key had; `more` adds the
 * route's own fields.
 */
export function answerStart<T extends object>(
  reply: FastifyReply,
  run: StartedRun,
  ctx: ApiContext,
  more?: T,
): FastifyReply {
  const links = ctx.links(run.workflowId);
  return reply
    .code(run.created ? 202 : 200)
    .header('location', links.self)
    .send({ workflowId: run.workflowId, created: run.created, links, ...more });
}

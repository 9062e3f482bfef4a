import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PipelineProgress, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import type { ApiContext } from '../api-context';
import {
  END_EVENT_ID,
  lastEventIdSchema,
  progressEventSchema,
  progressEventsDescription,
  progressEventsResponses,
  resumePoint,
  streamProgressEvents,
} from '../event-stream';
import { linkProgressAvatars } from '../archive-links';
import { BEARER_SCHEME } from '../openapi';
import { describePipeline } from '../pipeline-view';
import { pipelineIdParamsSchema, pipelineProgressSchema, pipelineResultSchema } from '../response-schemas';
import { archiveOrigin } from './pipeline-status';

/** What each event's `data` holds, by event name; documented as the stream's schema. */
export const pipelineStreamEventSchema = progressEventSchema(
  'PipelineStreamEvent',
  pipelineProgressSchema,
  pipelineResultSchema,
  'pipeline',
);

export function registerPipelineEventsRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/pipelines/:id/events',
    schema: {
      summary: 'Live progress of a pipeline (Server-Sent Events)',
      description: progressEventsDescription('pipeline', 'its result'),
      tags: ['pipelines'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: pipelineIdParamsSchema,
      headers: z.looseObject({ 'last-event-id': lastEventIdSchema }),
      response: progressEventsResponses('pipeline', pipelineStreamEventSchema),
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const after = resumePoint(request);
      await describePipeline(ctx.client, request.caller.tenant, id);
      if (after === END_EVENT_ID) return reply.code(204).send(null);
      const origin = archiveOrigin(ctx, request);
      await streamProgressEvents<PipelineProgress, PipelineResult>(request, reply, ctx.progressHub, id, {
        afterVersion: after,
        // Each done style's avatars with links to their archived copies, as GET /pipelines/{id} serves them.
        presentProgress: (progress) =>
          linkProgressAvatars(
            progress,
            ctx.store,
            ctx.linkSigner,
            origin,
            Date.now(),
            ctx.config.api.archiveLinkTtlSeconds,
          ),
      });
    },
  });
}

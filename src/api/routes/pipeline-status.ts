import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { linkArchivedAvatars, linkProgressAvatars } from '../archive-links';
import { BEARER_SCHEME } from '../openapi';
import { pipelineStatus } from '../pipeline-view';
import { pipelineIdParamsSchema, pipelineStatusSchema } from '../response-schemas';

export function registerPipelineStatusRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/pipelines/:id',
    schema: {
      summary: 'State, progress and outcome of a pipeline',
      description:
        'state comes from Temporal (running, completed, failed, cancelled, terminated, timed_out); progress from the pipeline\u2019s progress query; result when completed, error when it ended otherwise.',
      tags: ['pipelines'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: pipelineIdParamsSchema,
      response: {
        200: pipelineStatusSchema.describe('The pipeline'),
        401: errorBodySchema,
        404: errorBodySchema.describe('No pipeline with this id'),
      },
    },
    handler: async (request) => {
      const status = await pipelineStatus(
        ctx.client,
        request.caller.tenant,
        request.params.id,
        ctx.links(request.params.id),
      );
      const origin = archiveOrigin(ctx, request);
      const progress =
        status.progress && (await linkProgressAvatars(status.progress, ctx.store, ctx.linkSigner, origin));
      const linked = { ...status, ...(progress ? { progress } : {}) };
      // A training run's result has no avatars to link.
      if (status.result === undefined || !('generations' in status.result)) return linked;
      return {
        ...linked,
        result: await linkArchivedAvatars(status.result, ctx.store, ctx.linkSigner, origin),
      };
    },
  });
}

/** Where archive links point: the configured public address, else the address this request came to (its Host header). */
export function archiveOrigin(ctx: ApiContext, request: FastifyRequest): string {
  return ctx.config.api.publicUrl ?? `${request.protocol}://${request.host}`;
}

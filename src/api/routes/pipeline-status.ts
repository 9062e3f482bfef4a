import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { linkArchivedAvatars } from '../archive-links';
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
      // A training run's result has no avatars to link.
      if (status.result === undefined || !('generations' in status.result)) return status;
      // The configured public address; without one, the address this request came to (its Host header).
      const origin = ctx.config.api.publicUrl ?? `${request.protocol}://${request.host}`;
      return {
        ...status,
        result: await linkArchivedAvatars(status.result, ctx.store, ctx.linkSigner, origin),
      };
    },
  });
}

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ApiError, errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { BEARER_SCHEME } from '../openapi';
import { describePipeline, stateOf } from '../pipeline-view';
import { cancelAcceptedSchema, pipelineIdParamsSchema } from '../response-schemas';

export function registerCancelPipelineRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'POST',
    url: '/pipelines/:id/cancel',
    schema: {
      summary: 'Cancel a running pipeline',
      description:
        'Requests cancellation; the pipeline cancels its styles and ends as cancelled shortly after. Cancelling one that is already cancelling is accepted again.',
      tags: ['pipelines'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: pipelineIdParamsSchema,
      response: {
        202: cancelAcceptedSchema.describe('Cancellation requested'),
        401: errorBodySchema,
        404: errorBodySchema.describe('No pipeline with this id'),
        409: errorBodySchema.describe('The pipeline has already ended'),
      },
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const description = await describePipeline(ctx.client, request.caller.tenant, id);
      const state = stateOf(description);
      if (state !== 'running') throw new ApiError(409, `Pipeline ${id} has already ended (${state})`, []);
      await ctx.client.workflow.getHandle(id, description.runId).cancel();
      return reply.code(202).send({ workflowId: id, state: 'cancelling' as const, links: ctx.links(id) });
    },
  });
}

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { healthSchema } from '../response-schemas';

const READINESS_DEADLINE_MS = 3_000;

/** Liveness (the process answers) and readiness (Temporal answers for the configured namespace); both public. */
export function registerHealthRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get(
    '/healthz',
    { schema: { summary: 'Liveness', tags: ['health'], response: { 200: healthSchema } } },
    () => ({ status: 'ok' }),
  );
  typed.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness: Temporal is reachable',
        tags: ['health'],
        response: { 200: healthSchema, 503: errorBodySchema.describe('Temporal is not reachable') },
      },
    },
    async (request, reply) => {
      const { namespace } = ctx.config.temporal;
      try {
        await ctx.client.connection.withDeadline(Date.now() + READINESS_DEADLINE_MS, () =>
          ctx.client.workflowService.describeNamespace({ namespace }),
        );
        return await reply.code(200).send({ status: 'ready' });
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed');
        const reason = err instanceof Error ? err.message : String(err);
        return reply.code(503).send({
          error: `Temporal at ${ctx.config.temporal.address} (namespace ${namespace}) is not reachable: ${reason}`,
          issues: [],
        });
      }
    },
  );
}

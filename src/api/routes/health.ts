import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { credentialsOf } from '../../config/api-credentials';
import { tokenCheck } from '../bearer-auth';
import { healthSchema } from '../response-schemas';

const READINESS_DEADLINE_MS = 3_000;

/**
 * Liveness (the process answers) and readiness (Temporal answers for the configured namespace);
 * both public. Why the API is not ready (Temporal's address, namespace, the gRPC error) is told
 * only to a caller with an API token: it maps the network behind the API.
 */
export function registerHealthRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const operator = tokenCheck(credentialsOf(ctx.config.api.tokens).map((c) => c.token));
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
        response: {
          200: healthSchema,
          503: errorBodySchema.describe('Not ready; with a bearer token, the reason'),
        },
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
        if (!operator(request.headers.authorization).valid)
          return reply.code(503).send({ error: 'not ready', issues: [] });
        const reason = err instanceof Error ? err.message : String(err);
        return reply.code(503).send({
          error: `Temporal at ${ctx.config.temporal.address} (namespace ${namespace}) is not reachable: ${reason}`,
          issues: [],
        });
      }
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ProviderError } from '@avatar-pipeline/client/provider/errors';
import { ApiError, errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { BEARER_SCHEME } from '../openapi';
import { stylesSchema } from '../response-schemas';

export function registerStylesRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/styles',
    schema: {
      summary: "The provider's styles",
      description: 'Style ids for the `styles` of a pipeline request, as the provider lists them.',
      tags: ['styles'],
      security: [{ [BEARER_SCHEME]: [] }],
      response: {
        200: stylesSchema.describe('The styles'),
        401: errorBodySchema,
        502: errorBodySchema.describe('The provider did not answer usefully'),
      },
    },
    handler: async () => {
      try {
        return { styles: await ctx.provider.listStyles() };
      } catch (err) {
        if (err instanceof ProviderError) throw new ApiError(502, `The provider failed: ${err.message}`, []);
        throw err;
      }
    },
  });
}

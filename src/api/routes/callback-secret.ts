import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { tenantCallbackSecret } from '../../callbacks/tenant-secret';
import { ApiError, errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { BEARER_SCHEME } from '../openapi';

/** GET /v1/callbacks/secret: the caller's tenant's secret for the callbackUrl deliveries of its runs. */
export function registerCallbackSecretRoute(app: FastifyInstance, ctx: ApiContext): void {
  const { callbacks } = ctx.config;
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/callbacks/secret',
    schema: {
      tags: ['webhooks'],
      security: [{ [BEARER_SCHEME]: [] }],
      summary: 'The caller\u2019s callback signing secret',
      description:
        'The `whsec_` secret that signs the Standard Webhooks headers of this tenant\u2019s `callbackUrl` deliveries. Each tenant has its own (derived from the server\u2019s CALLBACK_SIGNING_SECRET), so no tenant can sign what another tenant\u2019s receiver accepts. During a rotation, `previous` also signs.',
      response: {
        200: z
          .object({ secret: z.string(), previous: z.string().optional() })
          .describe(
            'The tenant\u2019s secret, and the previous one while CALLBACK_SIGNING_SECRET_PREVIOUS is set',
          ),
        401: errorBodySchema,
        404: errorBodySchema.describe(
          'No secret exists: CALLBACK_SIGNING_SECRET is not set, so callbacks are disabled on this server',
        ),
      },
    },
    handler: (request) => {
      const { signingSecret, previousSigningSecret } = callbacks;
      if (!signingSecret) {
        // No secret exists to hand out; a 5xx would say the server failed, which it did not.
        throw new ApiError(404, 'Callbacks are disabled on this server (CALLBACK_SIGNING_SECRET is not set)');
      }
      const tenant = request.caller.tenant;
      return Promise.resolve({
        secret: tenantCallbackSecret(signingSecret, tenant),
        ...(previousSigningSecret ? { previous: tenantCallbackSecret(previousSigningSecret, tenant) } : {}),
      });
    },
  });
}

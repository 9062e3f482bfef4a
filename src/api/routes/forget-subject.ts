import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { forgetSubject } from '../../client/forget-subject';
import { errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { BEARER_SCHEME } from '../openapi';

const forgetReportSchema = z
  .object({
    subject: z.string().describe('The subject\u2019s key in the store (a hash, never the id)'),
    storedObjects: z.number().describe('Objects of the subject left in the store: 0 once erased'),
    runs: z.array(z.object({ workflowId: z.string(), status: z.string() })),
    providerHeld: z
      .object({
        modelIds: z.array(z.number()),
        orderIds: z.array(z.number()),
        canDelete: z.literal(false),
      })
      .describe('What the provider still holds: it offers no way to delete models or orders'),
  })
  .meta({ id: 'ForgetReport' });

/** Erases a person (selfies, archived avatars); idempotent, so a repeat answers the same report. */
export function registerForgetSubjectRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'DELETE',
    url: '/subjects/:subjectId',
    schema: {
      summary: 'Erase a subject: stored selfies and archived avatars',
      description:
        'Cancels the subject\u2019s open pipelines, deletes every object stored for them and reports the model and order ids the provider still holds (it has no delete endpoint). Results of their runs no longer link avatars.',
      tags: ['subjects'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: z.object({ subjectId: z.string().min(1).max(200) }),
      response: { 200: forgetReportSchema, 401: errorBodySchema },
    },
    handler: (request) =>
      forgetSubject(ctx.client, ctx.store, request.params.subjectId, {
        audit: (entry) => request.log.info(entry, 'subject erased'),
      }),
  });
}

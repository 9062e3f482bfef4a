import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { forgetSubject } from '@avatar-pipeline/client/erasure/forget-subject';
import { SEARCHABLE_TEXT } from '@avatar-pipeline/client/client/list-pipelines';
import { errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { BEARER_SCHEME } from '../openapi';

const forgetReportSchema = z
  .object({
    subject: z.string().describe('The subject\u2019s key in the store (a hash, never the id)'),
    storedObjects: z.number().describe('Objects of the subject left in the store: 0 once erased'),
    runs: z
      .array(z.object({ workflowId: z.string(), status: z.string() }))
      .describe('The runs erased (deleted from Temporal); none on a repeat'),
    webhookDeliveries: z
      .number()
      .describe('Webhook delivery-log records about the subject deleted: no redelivery finds them'),
    webhookRedeliveries: z
      .number()
      .describe('Runs of redelivery workflows of those deliveries deleted (running ones terminated)'),
    providerHeld: z
      .object({
        modelIds: z.array(z.number()),
        orderIds: z.array(z.number()),
        canDelete: z.literal(false),
      })
      .describe('What the provider still holds: it offers no way to delete models or orders'),
  })
  .meta({ id: 'ForgetReport' });

/** Erases a person (selfies, archived avatars, runs, campaign manifest lines); a repeat finds nothing left to erase. */
export function registerForgetSubjectRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'DELETE',
    url: '/subjects/:subjectId',
    schema: {
      summary: 'Erase a subject: stored selfies, archived avatars, runs and campaign entries',
      description:
        'Cancels the subject\u2019s open pipelines, deletes every object stored for them, deletes their runs from Temporal (so their results and the provider\u2019s avatar URLs are no longer answered), deletes the tenant\u2019s webhook delivery-log records about them and the redeliveries of those (a later redelivery answers 404 and sends nothing), erases them from stored campaign manifests and tells the running campaigns that hold them (no campaign starts them afterwards; campaign progress, event streams, summaries and results leave them out) and reports the model and order ids the provider still holds (it has no delete endpoint). A repeat finds no runs left and answers an empty report.',
      tags: ['subjects'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: z.object({
        // Runs are found by a visibility query that holds the id between quotes.
        subjectId: z
          .string()
          .min(1)
          .max(200)
          .regex(
            SEARCHABLE_TEXT,
            'a subject id with quotes, backslashes or control characters cannot be searched for',
          ),
      }),
      response: { 200: forgetReportSchema, 401: errorBodySchema },
    },
    handler: (request) =>
      forgetSubject(ctx.client, ctx.store, request.params.subjectId, {
        tenant: request.caller.tenant,
        audit: (entry) => request.log.info(entry, 'subject erased'),
      }),
  });
}

import { z } from 'zod';
import { MAX_MANIFEST_BYTES } from '../manifest';
import { campaignIdSchema } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { campaignJsonStartSchema } from './schemas';
import { strip } from '../../api/pipeline-request-docs';

/**
 * The two bodies POST /v1/campaigns accepts, for the OpenAPI document only: the handler reads them
 * itself (the manifest file is streamed, not parsed up front).
 */
export function campaignRequestBodyDocs() {
  const json = z.toJSONSchema(campaignJsonStartSchema, {
    target: 'openapi-3.0',
    io: 'input',
    unrepresentable: 'any',
  });
  const multipart = z.toJSONSchema(
    // Strict: the handler refuses a field it does not know.
    z.strictObject({
      manifest: z
        .string()
        .meta({ format: 'binary' })
        .describe(`The manifest, CSV or JSONL, at most ${MAX_MANIFEST_BYTES} bytes`),
      campaignId: campaignIdSchema
        .optional()
        .describe('The campaign\u2019s id (its workflow id); one is made up if absent'),
      skipInvalid: z
        .enum(['true', 'false'])
        .optional()
        .describe('Start the valid rows, leaving out the others'),
      maxInFlight: z
        .string()
        .regex(/^(\d+|auto)$/)
        .optional()
        .describe('Subjects in flight at once: a whole number, or auto'),
      review: z
        .enum(['true', 'false'])
        .optional()
        .describe(
          'Every subject\u2019s run waits for a person\u2019s decisions once generated, with the default deadline and reminders (JSON `options.review` sets them)',
        ),
    }),
    { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' },
  );
  return {
    content: {
      'multipart/form-data': { schema: strip(multipart) },
      'application/json': { schema: strip(json) },
    },
  };
}

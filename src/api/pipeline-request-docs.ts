import { z } from 'zod';
import { MAX_SELFIES } from '@avatar-pipeline/client/contracts/limits';
import { trainingInputSchema } from '@avatar-pipeline/client/contracts/model-runs';
import { pipelineInputSchema } from '@avatar-pipeline/client/contracts/pipeline-input';

/**
 * A text field of a multipart form. A field sent empty is refused like any other bad value (422
 * naming it), as in the JSON body: to leave an optional field out, leave it out of the form.
 */
const text = () => z.string().min(1);

/**
 * The two bodies POST /v1/pipelines accepts, for the OpenAPI document only: the handler reads
 * them itself (a multipart body is streamed, not parsed up front) and validates both with the
 * shared pipelineInputSchema.
 */
export function pipelineRequestBodyDocs(maxFileBytes: number) {
  const json = z.toJSONSchema(pipelineInputSchema, {
    target: 'openapi-3.0',
    io: 'input',
    unrepresentable: 'any',
  });
  const multipart = z.toJSONSchema(
    // Strict: the handler refuses a field it does not know.
    z.strictObject({
      selfies: z
        .array(z.string().meta({ format: 'binary' }))
        .min(1)
        .max(MAX_SELFIES)
        .describe(
          `JPEG or PNG selfies (checked by content), at most ${MAX_SELFIES}, each at most ${maxFileBytes} bytes`,
        ),
      styles: text().describe('Style ids: repeated fields, comma separated (3,5,7) or a JSON array'),
      gender: z.enum(['1', '2']).describe('1 (woman) or 2 (man)'),
      mainImageIndex: text().optional().describe('Index of the main selfie; the first by default'),
      mainImage: text().optional().describe('Or: the file name of the main selfie'),
      subjectId: text().optional().describe("The caller's name for the person"),
      callbackUrl: text()
        .optional()
        .describe("Receives the run's webhook events, signed (Standard Webhooks)"),
      callbackEvents: text()
        .optional()
        .describe(
          "Events callbackUrl receives: repeated fields or comma separated (names, <group>.* or *); the run's end by default",
        ),
      trainingDeadlineMs: text().optional(),
      generationDeadlineMs: text().optional(),
      polling: text().optional().describe('Polling options as a JSON object (see the JSON body)'),
      review: text()
        .optional()
        .describe(
          'true: hold the generated styles for a person\u2019s decisions, with the default deadline and reminders; or the JSON body\u2019s `review` object as JSON',
        ),
    }),
    { target: 'openapi-3.0', io: 'input' },
  );
  return {
    content: {
      'multipart/form-data': { schema: strip(multipart) },
      'application/json': { schema: strip(json) },
    },
  };
}

/**
 * The JSON body of POST /v1/models, for the OpenAPI document only: the handler validates it with
 * trainingInputSchema itself, to answer its issues with the same paths as a pipeline's.
 */
export function trainingRequestBodyDocs() {
  const json = z.toJSONSchema(trainingInputSchema, {
    target: 'openapi-3.0',
    io: 'input',
    unrepresentable: 'any',
  });
  return { content: { 'application/json': { schema: strip(json) } } };
}

/** `$schema` belongs to standalone JSON Schema documents, not to schemas inside OpenAPI. */
export function strip(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

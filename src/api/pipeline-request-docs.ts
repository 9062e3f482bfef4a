import { z } from 'zod';
import { MAX_SELFIES } from '@avatar-pipeline/client/contracts/limits';
import { trainingInputSchema } from '@avatar-pipeline/client/contracts/model-runs';
import { pipelineInputSchema } from '@avatar-pipeline/client/contracts/pipeline-input';

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
      styles: z.string().describe('Style ids: repeated fields, comma separated (3,5,7) or a JSON array'),
      gender: z.enum(['1', '2']).describe('1 (woman) or 2 (man)'),
      mainImageIndex: z.string().optional().describe('Index of the main selfie; the first by default'),
      mainImage: z.string().optional().describe('Or: the file name of the main selfie'),
      subjectId: z.string().optional().describe("The caller's name for the person"),
      callbackUrl: z
        .string()
        .optional()
        .describe("Receives the run's webhook events, signed (Standard Webhooks)"),
      callbackEvents: z
        .string()
        .optional()
        .describe(
          "Events callbackUrl receives: repeated fields or comma separated (names, <group>.* or *); the run's end by default",
        ),
      trainingDeadlineMs: z.string().optional(),
      generationDeadlineMs: z.string().optional(),
      polling: z.string().optional().describe('Polling options as a JSON object (see the JSON body)'),
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

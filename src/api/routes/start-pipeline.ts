import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  pipelineWorkflowId,
  startPipelineRun,
  validatePipelineRequest,
} from '@avatar-pipeline/client/client/pipelines';
import { callerFieldProblems, type PipelineInput } from '@avatar-pipeline/client/contracts/pipeline-input';
import { pollingBoundsProblems } from '@avatar-pipeline/client/contracts/polling-bounds';
import { DEFAULT_SELFIE_RETENTION } from '@avatar-pipeline/client/config/selfie-retention';
import { ApiError, errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { requestFromForm } from '../form-fields';
import { idempotencyKeySchema, requestFingerprint } from '../idempotency';
import { readMultipartUpload, SELFIES_FIELD } from '../multipart-upload';
import { BEARER_SCHEME } from '../openapi';
import { checkRequest } from '../request-checks';
import { startedSchema } from '../response-schemas';
import type { UploadBatch } from '@avatar-pipeline/client/storage/upload-batch';
import { answerStart, refuseReusedKey } from '../start-answer';
import { InputError } from '@avatar-pipeline/client/errors';
import { pricingOf } from '../../config/tenants';

/** A validated request, with the uploads it stored (if any) and what identifies its images. */
interface PreparedRequest {
  input: PipelineInput;
  imageIdentities: string[];
  /** The request's selfies in the blob store, already named by `input.images`. */
  uploads?: UploadBatch;
}

export function registerStartPipelineRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'POST',
    url: '/pipelines',
    schema: {
      summary: 'Start a pipeline',
      description: [
        'Either multipart/form-data with the selfies as files in the `selfies` field, or JSON with image',
        'references (absolute paths under the workers\u2019 IMAGE_ROOTS, or URLs on IMAGE_URL_HOSTS).',
        'Answers 202 for a new run, 200 when an earlier request with the same Idempotency-Key started it.',
      ].join(' '),
      tags: ['pipelines'],
      security: [{ [BEARER_SCHEME]: [] }],
      headers: z.looseObject({ 'idempotency-key': idempotencyKeySchema.optional() }),
      response: {
        200: startedSchema.describe('An earlier request with this Idempotency-Key started the run'),
        202: startedSchema.describe('Started'),
        400: errorBodySchema.describe('Malformed request'),
        401: errorBodySchema.describe('Missing or wrong bearer token'),
        402: errorBodySchema.describe('The run would take the tenant past its budget: nothing was started'),
        413: errorBodySchema.describe('Too many files, a file too large, or files together too large'),
        415: errorBodySchema.describe('Not JSON or multipart, or a file that is not JPEG/PNG'),
        422: errorBodySchema.describe('Invalid fields, with their paths'),
        503: errorBodySchema.describe(
          'The Temporal namespace is not set up for pipelines, or the selfie checks did not answer (no check worker)',
        ),
      },
    },
    handler: async (request, reply) => {
      const { tenant } = request.caller;
      const workflowId = pipelineWorkflowId(tenant, request.headers['idempotency-key']);
      const retention = ctx.config.api.selfieRetention ?? DEFAULT_SELFIE_RETENTION;
      const prepared = await prepare(request, ctx, workflowId);
      try {
        const fingerprint = requestFingerprint(prepared.input, prepared.imageIdentities);
        const run = await startPipelineRun(ctx.client, prepared.input, {
          ...ctx.config.placement,
          tenant,
          pricing: pricingOf(ctx.config, tenant),
          requestFingerprint: fingerprint,
          workflowId,
          // The run deletes its uploads the moment training is over; the janitor is the backstop.
          deleteUploadsAfterTraining: prepared.uploads !== undefined && retention.kind === 'after-training',
        });
        if (!run.created) {
          await prepared.uploads?.discard();
          refuseReusedKey(run, fingerprint);
        }
        return await answerStart(reply, run, ctx);
      } catch (err) {
        await prepared.uploads?.discard();
        throw err;
      }
    },
  });
}

async function prepare(
  request: FastifyRequest,
  ctx: ApiContext,
  workflowId: string,
): Promise<PreparedRequest> {
  if (request.isMultipart()) return prepareUpload(request, ctx, workflowId);
  if (request.body === undefined || request.body === null) {
    throw new ApiError(415, 'Send application/json or multipart/form-data', []);
  }
  const input = validate(request.body, ctx);
  await checkRequest(input, {
    callbacks: ctx.config.callbacks,
    imageAccess: ctx.config.imageAccess,
    offeredStyles: ctx.offeredStyles,
  });
  return { input, imageIdentities: input.images };
}

async function prepareUpload(
  request: FastifyRequest,
  ctx: ApiContext,
  workflowId: string,
): Promise<PreparedRequest> {
  const upload = await readMultipartUpload(
    request,
    ctx.store,
    workflowId,
    ctx.config.api.maxFileBytes,
    ctx.config.api.maxRequestBytes,
  );
  try {
    const { request: draft, issues } = requestFromForm(upload.fields, upload.selfies);
    let input: PipelineInput | undefined;
    try {
      input = validate(draft, ctx, { images: SELFIES_FIELD });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      issues.push(...err.issues);
    }
    if (issues.length > 0 || !input) throw ApiError.invalid(issues);
    await checkRequest(input, { callbacks: ctx.config.callbacks, offeredStyles: ctx.offeredStyles });
    return {
      input,
      imageIdentities: upload.selfies.map((s) => `sha256:${s.sha256}`),
      uploads: upload.batch,
    };
  } catch (err) {
    await upload.batch.discard();
    throw err;
  }
}

function validate(body: unknown, ctx: ApiContext, rename: Record<string, string> = {}): PipelineInput {
  const reserved = [
    ...callerFieldProblems(body),
    ...pollingBoundsProblems(pollingOf(body), ctx.config.placement.pollingBounds),
  ];
  let input: PipelineInput;
  try {
    input = validatePipelineRequest(body);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    const invalid = ApiError.fromInputError(err, rename);
    throw ApiError.invalid([...reserved, ...invalid.issues]);
  }
  if (reserved.length > 0) throw ApiError.invalid(reserved);
  return input;
}

/** The `polling` object of a request as sent, if it has one. */
function pollingOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null ? (body as { polling?: unknown }).polling : undefined;
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PipelineInputError } from '../../client/input-error';
import { pipelineWorkflowId, startPipelineRun, validatePipelineRequest } from '../../client/pipelines';
import { callerFieldProblems, type PipelineInput } from '../../contracts/pipeline-input';
import { ApiError, errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import type { BlobBatch, StoredFile } from '../blob-store';
import { requestFromForm } from '../form-fields';
import { idempotencyKeySchema, requestFingerprint } from '../idempotency';
import { readMultipartUpload, SELFIES_FIELD } from '../multipart-upload';
import { BEARER_SCHEME } from '../openapi';
import { checkRequest } from '../request-checks';
import { startedSchema } from '../response-schemas';
import { storeUploads, type StoredUploads } from '../stored-uploads';
import { answerStart, refuseReusedKey } from '../start-answer';

/** A validated request, with the uploads it stored (if any) and what identifies its images. */
interface PreparedRequest {
  input: PipelineInput;
  imageIdentities: string[];
  uploads?: BlobBatch;
  /** The uploaded files, checked. */
  files?: StoredFile[];
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
        413: errorBodySchema.describe('Too many files, a file too large, or files together too large'),
        415: errorBodySchema.describe('Not JSON or multipart, or a file that is not JPEG/PNG'),
        422: errorBodySchema.describe('Invalid fields, with their paths'),
        503: errorBodySchema.describe('The Temporal namespace is not set up for pipelines'),
      },
    },
    handler: async (request, reply) => {
      const requestId = request.headers['idempotency-key'];
      const prepared = await prepare(request, ctx);
      let stored: StoredUploads | undefined;
      try {
        const fingerprint = requestFingerprint(prepared.input, prepared.imageIdentities);
        const workflowId = pipelineWorkflowId(requestId);
        // Claimed before the start, so the upload janitor can tell whose files these are even if
        // the API stops right after starting the run.
        await prepared.uploads?.claim(workflowId);
        // With object storage the selfies move into the bucket, under the run's id, where every
        // worker reads them; on the filesystem they stay where they were uploaded.
        stored =
          prepared.files && ctx.storesUploads
            ? await storeUploads(ctx.store, prepared.files, workflowId)
            : undefined;
        const input = stored ? { ...prepared.input, images: stored.references } : prepared.input;
        const archiveAvatars = ctx.config.storage?.archiveAvatars;
        const run = await startPipelineRun(ctx.client, input, {
          ...(archiveAvatars !== undefined ? { archiveAvatars } : {}),
          taskQueue: ctx.config.temporal.taskQueue,
          // Interactive runs use the rate-limited provider queue too, where they go ahead of campaign work.
          providerTaskQueue: ctx.config.providerQueue.taskQueue,
          requestFingerprint: fingerprint,
          workflowId,
        });
        if (!run.created) {
          await prepared.uploads?.discard();
          await stored?.discard();
          refuseReusedKey(run, fingerprint);
        }
        return await answerStart(reply, run, ctx);
      } catch (err) {
        await prepared.uploads?.discard();
        await stored?.discard();
        throw err;
      }
    },
  });
}

async function prepare(request: FastifyRequest, ctx: ApiContext): Promise<PreparedRequest> {
  if (request.isMultipart()) return prepareUpload(request, ctx);
  if (request.body === undefined || request.body === null) {
    throw new ApiError(415, 'Send application/json or multipart/form-data', []);
  }
  const input = validate(request.body);
  await checkRequest(input, {
    callbacks: ctx.config.callbacks,
    imageAccess: ctx.config.imageAccess,
    offeredStyles: ctx.offeredStyles,
  });
  return { input, imageIdentities: input.images };
}

async function prepareUpload(request: FastifyRequest, ctx: ApiContext): Promise<PreparedRequest> {
  const upload = await readMultipartUpload(
    request,
    ctx.blobs,
    ctx.config.api.maxFileBytes,
    ctx.config.api.maxRequestBytes,
  );
  try {
    const { request: draft, issues } = requestFromForm(upload.fields, upload.selfies);
    let input: PipelineInput | undefined;
    try {
      input = validate(draft, { images: SELFIES_FIELD });
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
      files: upload.selfies,
    };
  } catch (err) {
    await upload.batch.discard();
    throw err;
  }
}

function validate(body: unknown, rename: Record<string, string> = {}): PipelineInput {
  const reserved = callerFieldProblems(body);
  let input: PipelineInput;
  try {
    input = validatePipelineRequest(body);
  } catch (err) {
    if (!(err instanceof PipelineInputError)) throw err;
    const invalid = ApiError.fromInputError(err, rename);
    throw ApiError.invalid([...reserved, ...invalid.issues]);
  }
  if (reserved.length > 0) throw ApiError.invalid(reserved);
  return input;
}

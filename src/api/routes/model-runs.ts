import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  startGeneration,
  startRetry,
  startTraining,
  validateTrainingRequest,
} from '@avatar-pipeline/client/client/model-runs';
import type { StartedRun } from '@avatar-pipeline/client/client/start-run';
import { ProviderCatalog } from '@avatar-pipeline/client/client/provider-catalog';
import { RetryRefusedError } from '@avatar-pipeline/client/client/retry-plan';
import { generationInputSchema } from '@avatar-pipeline/client/contracts/model-runs';
import { ProviderError } from '@avatar-pipeline/client/provider/errors';
import { ApiError, errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { fingerprintOf, idempotencyKeySchema } from '../idempotency';
import { modelIdParamsSchema } from '../model-schemas';
import { BEARER_SCHEME } from '../openapi';
import { answerStart, refuseReusedKey } from '../start-answer';
import { checkRequest } from '../request-checks';
import { providerOfTenant } from '../provider-read';
import { linksSchema, pipelineIdParamsSchema } from '../response-schemas';
import { InputError } from '@avatar-pipeline/client/errors';
import { pricingOf } from '../../config/tenants';

const runStartedSchema = z
  .object({
    workflowId: z.string().describe('Follow it at /v1/pipelines/{workflowId} (and …/events)'),
    created: z.boolean().describe('false when an earlier request with the same Idempotency-Key started it'),
    links: linksSchema,
  })
  .meta({ id: 'RunStarted' });

const retryStartedSchema = runStartedSchema
  .extend({
    retryOf: z.string(),
    modelId: z.number(),
    styles: z.array(z.number()).describe('Generated again: the styles that did not end DONE'),
    kept: z.array(z.number()).describe('Kept as they were: the styles that ended DONE'),
  })
  .meta({ id: 'RetryStarted' });

/** The body of a generation: the model comes from the path, the gender defaults to the model's own. */
const generationBodySchema = generationInputSchema
  .omit({ modelId: true, retry: true, gender: true })
  .extend({ gender: generationInputSchema.shape.gender.optional() });

const idempotencyHeaders = z.looseObject({ 'idempotency-key': idempotencyKeySchema.optional() });
const failures = {
  400: errorBodySchema.describe('Malformed request'),
  401: errorBodySchema.describe('Missing or wrong bearer token'),
  402: errorBodySchema.describe('The run would take the tenant past its budget: nothing was started'),
  502: errorBodySchema.describe('The provider could not be asked'),
  503: errorBodySchema.describe(
    'The Temporal namespace is not set up for pipelines, or the selfie checks did not answer (no check worker)',
  ),
};

/** POST /models (train only), POST /models/:modelId/generations and POST /pipelines/:id/retry. */
export function registerModelRunRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const options = (tenant: string, requestId: string | undefined, request: unknown) => ({
    ...ctx.config.placement,
    tenant,
    pricing: pricingOf(ctx.config, tenant),
    requestFingerprint: fingerprintOf(request),
    ...(requestId ? { requestId } : {}),
  });

  typed.route({
    method: 'POST',
    url: '/models',
    schema: {
      summary: 'Train a model (no styles generated)',
      description:
        'JSON with image references (absolute paths under the workers\u2019 IMAGE_ROOTS, or URLs on IMAGE_URL_HOSTS), gender and the styles recorded on the model order. The run ends with the model DONE; generate under it later with POST /v1/models/{modelId}/generations, as often as wanted. 202 for a new run, 200 when an earlier request with the same Idempotency-Key started it.',
      tags: ['models'],
      security: [{ [BEARER_SCHEME]: [] }],
      headers: idempotencyHeaders,
      body: z
        .looseObject({})
        .describe('images, styles, gender, mainImageIndex, subjectId, trainingDeadlineMs, polling'),
      response: {
        200: runStartedSchema.describe('An earlier request with this Idempotency-Key started the run'),
        202: runStartedSchema.describe('Started'),
        422: errorBodySchema.describe('Invalid fields, with their paths'),
        ...failures,
      },
    },
    handler: async (request, reply) => {
      const input = asApiInput(() => validateTrainingRequest(request.body));
      await checkRequest(input, {
        callbacks: ctx.config.callbacks,
        imageAccess: ctx.config.imageAccess,
        offeredStyles: ctx.offeredStyles,
      });
      const run = await startTraining(
        ctx.client,
        input,
        options(request.caller.tenant, request.headers['idempotency-key'], input),
      );
      return answer(reply, run, fingerprintOf(input), ctx);
    },
  });

  typed.route({
    method: 'POST',
    url: '/models/:modelId/generations',
    schema: {
      summary: 'Generate styles under a trained model (no training)',
      description:
        'The provider is asked first: the model must be a model (not a generation order), DONE, of the gender given (default: the model\u2019s own), and every style must be offered; otherwise 422 names the field and nothing starts. 202 for a new run, 200 when an earlier request with the same Idempotency-Key started it.',
      tags: ['models'],
      security: [{ [BEARER_SCHEME]: [] }],
      headers: idempotencyHeaders,
      params: modelIdParamsSchema,
      body: generationBodySchema,
      response: {
        200: runStartedSchema.describe('An earlier request with this Idempotency-Key started the run'),
        202: runStartedSchema.describe('Started'),
        422: errorBodySchema.describe(
          'Invalid fields, or the model is unknown, a generation order, not DONE, of the other gender, or a style is not offered',
        ),
        ...failures,
      },
    },
    handler: async (request, reply) => {
      const { modelId } = request.params;
      const { tenant } = request.caller;
      const gender = request.body.gender ?? (await modelGender(ctx, tenant, modelId));
      const body = { ...request.body, modelId, gender };
      const run = await asApiStart(() =>
        startGeneration(ctx.client, ctx.provider, body, {
          ...options(tenant, request.headers['idempotency-key'], body),
          fields: { modelId: 'params.modelId', gender: 'gender', style: (i) => `styles.${i}` },
        }),
      );
      return answer(reply, run, fingerprintOf(body), ctx);
    },
  });

  typed.route({
    method: 'POST',
    url: '/pipelines/:id/retry',
    schema: {
      summary: 'Retry the styles of a run that did not end DONE, under the same model',
      description:
        'For a pipeline, generation run or retry that ended PARTIAL (or failed because no style succeeded): a generation run, `<id>/retry-<styles>`, generates again only the styles that did not end DONE, under the same model, without training; its result lists every style, the DONE ones kept as they were. The retry is named after the run and those styles, so asking again (with any Idempotency-Key, or none) answers the retry the first request started (200) and starts nothing; the run’s status names it (`retry`).',
      tags: ['pipelines'],
      security: [{ [BEARER_SCHEME]: [] }],
      headers: idempotencyHeaders,
      params: pipelineIdParamsSchema,
      response: {
        200: retryStartedSchema.describe('An earlier request started this retry'),
        202: retryStartedSchema.describe('Started'),
        404: errorBodySchema.describe('No run with this id'),
        409: errorBodySchema.describe(
          'Nothing to retry: still running, every style DONE, or it failed before generating',
        ),
        ...failures,
      },
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const requestId = request.headers['idempotency-key'];
      const run = await asApiStart(async () => {
        try {
          return await startRetry(
            ctx.client,
            ctx.provider,
            id,
            options(request.caller.tenant, requestId, { retry: id }),
          );
        } catch (err) {
          if (err instanceof RetryRefusedError) {
            throw new ApiError(err.notFound ? 404 : 409, `Cannot retry ${id}: ${err.reason}`, [
              { path: 'params.id', message: err.reason },
            ]);
          }
          throw err;
        }
      });
      return answerStart(reply, run, ctx, {
        retryOf: id,
        modelId: run.plan.modelId,
        styles: run.plan.styles,
        kept: run.plan.kept.map((g) => g.styleId),
      });
    },
  });
}

/** The model's gender as the provider records it; an id that is no model is left for the full check to name. */
async function modelGender(ctx: ApiContext, tenant: string, modelId: number): Promise<1 | 2> {
  const provider = providerOfTenant(ctx, tenant);
  const found = await asApiStart(() => new ProviderCatalog(provider).lookup(modelId, 'params.modelId'));
  if (found.kind !== 'model') return 1;
  if (found.model.gender === undefined) {
    throw ApiError.invalid([
      { path: 'gender', message: `the provider records no gender for model ${modelId}: give it` },
    ]);
  }
  return found.model.gender;
}

function asApiInput<T>(validate: () => T): T {
  try {
    return validate();
  } catch (err) {
    if (err instanceof InputError) throw ApiError.fromInputError(err);
    throw err;
  }
}

/** Refusals become 422 naming the field; a provider that cannot be asked, 502 (nothing started either way). */
async function asApiStart<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    if (err instanceof InputError && !(err instanceof RetryRefusedError)) throw ApiError.fromInputError(err);
    if (err instanceof ProviderError)
      throw new ApiError(502, `The provider could not be asked: ${err.message}`, []);
    throw err;
  }
}

function answer(reply: FastifyReply, run: StartedRun, fingerprint: string, ctx: ApiContext) {
  refuseReusedKey(run, fingerprint);
  return answerStart(reply, run, ctx);
}

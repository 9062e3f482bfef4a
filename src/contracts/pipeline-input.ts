import { z } from 'zod';
import { genderSchema, stylesSchema } from '../provider/request-schemas';
import { MAX_SELFIES } from './limits';

/**
 * A selfie is passed by reference, never by value: an absolute file path under one of the
 * worker's IMAGE_ROOTS, or an http(s) URL on a host in IMAGE_URL_HOSTS. Activities read the
 * bytes; workflow history only ever holds this string.
 */
export const imageReferenceSchema = z
  .string({ error: 'must be a file path or an http(s) URL' })
  .min(1, 'must not be empty')
  .max(2048, 'must be at most 2048 characters')
  .refine((ref) => !ref.startsWith('data:'), 'must be a reference (path or URL), not inline image data')
  .refine(
    (ref) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(ref) || /^https?:\/\//i.test(ref),
    'must use http or https when it is a URL',
  )
  .refine(
    (ref) => /^https?:\/\//i.test(ref) || ref.startsWith('/'),
    'must be an absolute file path or an http(s) URL',
  );

const durationMs = z.number().int().positive();

/** Where a pipeline's end is announced. Credentials in the URL would land in workflow history, so they are refused. */
export const callbackUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048, 'must be at most 2048 characters')
  .refine((url) => {
    if (!URL.canParse(url)) return true; // the URL check above reports it
    const parsed = new URL(url);
    return parsed.username === '' && parsed.password === '';
  }, 'must not carry credentials (user:password@)');

export const pollingOptionsSchema = z.strictObject({
  /** First wait after a run, before the first status call. */
  initialIntervalMs: durationMs.default(5_000),
  /** No wait is ever longer than this, so a finish is noticed within it even without progress figures. */
  maxIntervalMs: durationMs.default(60_000),
  /** No wait is ever shorter than this. */
  minIntervalMs: durationMs.default(1_000),
  backoffCoefficient: z.number().min(1).max(10).default(1.5),
});
export type PollingOptions = z.output<typeof pollingOptionsSchema>;

export const pipelineInputSchema = z
  .strictObject({
    images: z
      .array(imageReferenceSchema)
      .min(1, 'must name at least one selfie')
      .max(MAX_SELFIES, `must name at most ${MAX_SELFIES} selfies`),
    styles: stylesSchema,
    gender: genderSchema,
    /** Index into images of the main training image; the first by default. */
    mainImageIndex: z.number().int('must be an integer').nonnegative('must not be negative').default(0),
    /** A caller's name for the person, shown in the Temporal UI and used by campaigns. */
    subjectId: z.string().min(1).max(200).optional(),
    campaignId: z.string().min(1).max(200).optional(),
    /** How long training may take before the pipeline gives up on it. */
    trainingDeadlineMs: durationMs.default(2 * 60 * 60 * 1000),
    /** How long each style's generation may take. */
    generationDeadlineMs: durationMs.default(60 * 60 * 1000),
    polling: pollingOptionsSchema.default(pollingOptionsSchema.parse({})),
    /** Receives the signed end-of-pipeline event (completed, failed or cancelled); see src/callbacks. */
    callbackUrl: callbackUrlSchema.optional(),
  })
  .refine((input) => input.mainImageIndex < input.images.length, {
    path: ['mainImageIndex'],
    message: 'must point at one of the images',
  });

/** What callers write (defaults optional) and what validation makes of it (defaults filled in). */
export type PipelineRequest = z.input<typeof pipelineInputSchema>;
export type PipelineInput = z.output<typeof pipelineInputSchema>;

/**
 * What the pipeline workflow receives: the validated request plus the task queue of the provider
 * activities (the rate-limited provider worker), which the starter resolves from its configuration.
 */
export type PipelineWorkflowInput = PipelineInput & { providerTaskQueue: string };

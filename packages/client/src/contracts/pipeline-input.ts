import { z } from 'zod';
import { genderSchema, stylesSchema } from '../provider/request-schemas';
import { eventFilterSchema } from './webhook-events';
import { reviewOptionsSchema } from './review';
import type { PollingBounds } from './polling-bounds';
import type { RunChecks } from './quality-checks';
import { MAX_DEADLINE_MS, MAX_POLL_INTERVAL_MS, MAX_SELFIES, MAX_STYLES } from './limits';

/**
 * An uploaded selfie in the blob store, by key (packages/client/src/storage/blob-reference.ts): what the API gives
 * the workflow for uploads. Starters refuse it from callers (the API checks references against
 * IMAGE_ROOTS and IMAGE_URL_HOSTS), and workers read only keys under `uploads/`.
 */
const STORED_REFERENCE = /^blob:uploads\/[A-Za-z0-9._/-]+$/;

/**
 * A selfie is passed by reference, never by value: an absolute file path under one of the
 * worker's IMAGE_ROOTS, an http(s) URL on a host in IMAGE_URL_HOSTS, or an upload in the store. Activities read the
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
    (ref) => /^https?:\/\//i.test(ref) || ref.startsWith('/') || STORED_REFERENCE.test(ref),
    'must be an absolute file path or an http(s) URL',
  );

const durationMs = (max: number, unit: string) =>
  z.number().int().positive().max(max, `must be at most ${max} (${unit})`);
/** How long a stage may take (training, generation of one style). */
export const deadlineMsSchema = durationMs(MAX_DEADLINE_MS, '7 days');
const intervalMs = durationMs(MAX_POLL_INTERVAL_MS, '1 hour');

/** A person's id: shown in terminals and the Temporal UI and part of campaign child workflow ids, so kept plain. */
export const subjectIdSchema = z
  .string({ error: 'must be text' })
  .trim()
  .min(1, { error: 'must not be empty', abort: true })
  .max(128, { error: 'must be at most 128 characters', abort: true })
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._@+-]*$/,
    'must start with a letter or digit and hold only letters, digits and . _ @ + -',
  );

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
  initialIntervalMs: intervalMs.default(5_000),
  /** No wait is ever longer than this, so a finish is noticed within it even without progress figures. */
  maxIntervalMs: intervalMs.default(60_000),
  /**
   * With a progress figure the wait goes to the finish it implies, past maxIntervalMs up to this
   * (twice maxIntervalMs when not given): steady progress makes the finish predictable, so an
   * order is polled about twice (once to learn its rate, once at its finish), while an order that
   * fails mid-way, or progress that misleads, is still noticed within this.
   */
  maxProgressIntervalMs: intervalMs.optional(),
  /** No wait is ever shorter than this. */
  minIntervalMs: intervalMs.default(1_000),
  backoffCoefficient: z.number().min(1).max(10).default(1.5),
});
export type PollingOptions = z.output<typeof pollingOptionsSchema>;

export const pipelineInputSchema = z
  .strictObject({
    images: z
      .array(imageReferenceSchema)
      .min(1, 'must name at least one selfie')
      .max(MAX_SELFIES, `must name at most ${MAX_SELFIES} selfies`),
    styles: stylesSchema.max(MAX_STYLES, `must name at most ${MAX_STYLES} styles`),
    gender: genderSchema,
    /** Index into images of the main training image; the first by default. */
    mainImageIndex: z
      .number()
      .int('must be an integer')
      .nonnegative('must not be negative')
      .default(0)
      .describe('Index into images of the main training image (less than their count); the first by default'),
    /** A caller's name for the person, shown in the Temporal UI and used by campaigns. */
    subjectId: subjectIdSchema.optional(),
    /** Set by the campaign that starts the pipeline; starters refuse it from callers (see callerFieldProblems). */
    campaignId: z.string().min(1).max(200).optional(),
    /** How long training may take before the pipeline gives up on it. */
    trainingDeadlineMs: deadlineMsSchema.default(2 * 60 * 60 * 1000),
    /** How long each style's generation may take. */
    generationDeadlineMs: deadlineMsSchema.default(60 * 60 * 1000),
    polling: pollingOptionsSchema.default(pollingOptionsSchema.parse({})),
    /** Receives the run's webhook events, signed (Standard Webhooks); see src/webhooks. */
    callbackUrl: callbackUrlSchema.optional(),
    /** The events callbackUrl receives (names, `<group>.*`, `*`); by default the run's end. */
    callbackEvents: eventFilterSchema
      .optional()
      .describe(
        "The events callbackUrl receives (names, <group>.* or *), with a callbackUrl only; by default the run's end",
      ),
    /** Hold the generated styles for a person's decisions before they end in the result (contracts/review.ts). */
    review: reviewOptionsSchema.optional(),
  })
  .refine((input) => input.mainImageIndex < input.images.length, {
    path: ['mainImageIndex'],
    message: 'must point at one of the images',
  })
  .refine((input) => input.callbackEvents === undefined || input.callbackUrl !== undefined, {
    path: ['callbackEvents'],
    message: 'needs a callbackUrl to deliver to',
  });

/** What callers write (defaults optional) and what validation makes of it (defaults filled in). */
export type PipelineRequest = z.input<typeof pipelineInputSchema>;
export type PipelineInput = z.output<typeof pipelineInputSchema>;

/**
 * What the pipeline workflow receives: the validated request plus what the starter resolves from
 * its configuration: the task queue of the provider activities (the rate-limited provider worker),
 * and whether avatars are copied into the blob store as they are produced (ARCHIVE_AVATARS; absent
 * means no archiving).
 */
export type PipelineWorkflowInput = PipelineInput & {
  /** Whose run it is (from the starter's credential, never from a request): where its avatars are archived. */
  tenant: string;
  providerTaskQueue: string;
  archiveAvatars?: boolean;
  /** The operator's polling bounds the run was started under; its polling is held within them. */
  pollingBounds?: PollingBounds;
  /**
   * The run deletes its uploaded selfies as soon as training no longer needs them: set by the API
   * for a request with uploads when SELFIE_RETENTION is after-training.
   */
  deleteUploadsAfterTraining?: boolean;
  /** The quality checks the run makes (SELFIE_CHECKS, AVATAR_CHECKS); absent: none. */
  checks?: RunChecks;
};

/** Fields only a campaign sets on the pipelines it starts; a caller setting one is refused, by name. */
export const CAMPAIGN_SET_FIELDS = ['campaignId'] as const;

/** Problems with fields of a caller's request that belong to the campaign that starts pipelines. */
export function callerFieldProblems(request: unknown): { path: string; message: string }[] {
  if (typeof request !== 'object' || request === null) return [];
  return CAMPAIGN_SET_FIELDS.filter((field) => Object.hasOwn(request, field)).map((field) => ({
    path: field,
    message: 'is set by the campaign that starts a pipeline; start a campaign to group runs under it',
  }));
}

import { z } from 'zod';
import { SIMULATOR_API_KEY } from '@avatar-pipeline/client/config/env-schema';
import { endpointNameSchema } from '@avatar-pipeline/client/provider/endpoints';
import { DEFAULT_STYLES, styleSchema } from './style-catalog';
import { InputError } from '@avatar-pipeline/client/errors';

const rate = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');
const count = z.number().int('must be a whole number').min(0, 'must not be negative');
const positiveCount = z.number().int('must be a whole number').min(1, 'must be at least 1');
/**
 * What a wrong avatar shows: another real person's portrait, a pattern with no face, or a picture
 * that the NSFW classifier the checks use flags as unsafe (samples/avatars/README.md says how it was made).
 */
const wrongAvatarSchema = z.enum(['another-person', 'no-face', 'unsafe']);
export type WrongAvatar = z.infer<typeof wrongAvatarSchema>;

/** Bounds that keep a knob from making the simulator build millions of records or pages. */
export const MAX_PAGE_SIZE = 5_000;
export const MAX_AVATARS_PER_ORDER = 5_000;

/** Wall mode: an order finishes a fixed time after its run, measured on the injectable clock. */
const wallProgressionSchema = z.object({
  mode: z.literal('wall'),
  trainingMs: count.default(5_000),
  generationMs: count.default(3_000),
  /** Generation time of orders for particular styles (by style id), instead of generationMs. */
  generationMsByStyle: z.record(z.string(), count).default({}),
});

/**
 * Calls mode: every status call moves a running order one step, and it finishes on the N-th call.
 * Time-skipping workflow tests use it so provider progress follows the workflow's polls, not real time.
 */
const callsProgressionSchema = z.object({
  mode: z.literal('calls'),
  trainingCalls: positiveCount.default(3),
  generationCalls: positiveCount.default(2),
});

export const progressionSchema = z.discriminatedUnion('mode', [
  wallProgressionSchema,
  callsProgressionSchema,
]);
export type Progression = z.infer<typeof progressionSchema>;

export const rateLimitSchema = z.object({
  requestsPerSecond: z.number().positive('must be greater than 0'),
  /** Requests allowed at once before the sustained rate applies; defaults to max(1, requestsPerSecond). */
  burst: positiveCount.optional(),
  /** Fixed Retry-After value; without it the header says when the next token arrives. */
  retryAfterSeconds: positiveCount.optional(),
  /**
   * Requests per second another client of the same key takes from the bucket (the app's own
   * calls, a staging deployment): a shared key. Its answers are counted in the stats' `sharedClient`.
   */
  sharedRps: z.number().nonnegative('must be 0 or more').optional(),
});
export type RateLimit = z.infer<typeof rateLimitSchema>;

/** "", or "/rest/api": a leading slash, no trailing slash, plain path segments. */
const basePathSchema = z
  .string()
  .transform((path) => {
    const trimmed = path.trim().replace(/\/+$/, '');
    return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  })
  .refine((path) => /^(\/[A-Za-z0-9._~-]+)*$/.test(path), 'must be a path like /rest/api');

export const simulatorOptionsSchema = z
  .object({
    /** The key clients must send as `Authorization: Bearer <key>`. */
    apiKey: z.string().min(1, 'must not be empty').default(SIMULATOR_API_KEY),
    /** contract: the spec's exact shapes. variant: the shapes the real service is known to send. */
    dialect: z.enum(['contract', 'variant']).default('contract'),
    /** Prefix before every endpoint path, like the production `/rest/api`. */
    basePath: basePathSchema.default(''),
    /** Origin written into image URLs; null uses the Host header of each request. */
    publicOrigin: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .transform((url) => url.replace(/\/+$/, ''))
      .nullable()
      .default(null),
    progression: progressionSchema.prefault({ mode: 'wall' }),
    /** Whether status answers carry `progress` (0-100). */
    reportProgress: z.boolean().default(true),
    trainingOutcome: z.enum(['DONE', 'ERROR']).default('DONE'),
    /** A generation order that asks for any of these styles ends in ERROR. */
    failStyles: z.array(z.number().int()).default([]),
    minTrainingImages: count.default(1),
    maxTrainingImages: positiveCount.default(30),
    /** Largest decoded selfie accepted; larger uploads get 413. */
    maxImageBytes: positiveCount.default(10 * 1024 * 1024),
    firstPage: z.union([z.literal(0), z.literal(1)]).default(1),
    pageSize: positiveCount.max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`).default(4),
    avatarsPerOrder: count.max(MAX_AVATARS_PER_ORDER, `must be at most ${MAX_AVATARS_PER_ORDER}`).default(8),
    /** A page index below firstPage answers an empty list, or 404. */
    pageBeforeFirst: z.enum(['empty', 'error']).default('empty'),
    /** Edge length in pixels of generated avatars (thumbnails are half). */
    avatarSize: z
      .number()
      .int()
      .min(16, 'must be at least 16')
      .max(1024, 'must be at most 1024')
      // Large enough for a face detector to find the face in every style (the avatar checks).
      .default(256),
    styles: z
      .array(styleSchema)
      .min(1, 'must list at least one style')
      .refine((styles) => new Set(styles.map((s) => s.id)).size === styles.length, 'style ids must be unique')
      .default(() => DEFAULT_STYLES.map((style) => ({ ...style }))),

    /**
     * Avatar image URLs of these orders answer `forgottenImageStatus`, like a provider that has
     * expired its files. A model's id covers the avatars of every generation order run on it.
     */
    forgottenImageOrders: z.array(z.number().int()).default([]),
    forgottenImageStatus: z.union([z.literal(404), z.literal(410)]).default(410),
    /**
     * Styles (keyed by style id) whose avatars do not show the model's person in the first `orders`
     * generation orders made for that style under a model; later orders of the style show the person
     * again. So a pipeline's avatar checks, and the regeneration they order, meet a real failure.
     */
    wrongAvatars: z
      .record(z.string(), z.object({ shows: wrongAvatarSchema, orders: positiveCount.default(1) }))
      .superRefine((rules, ctx) => {
        for (const key of Object.keys(rules)) {
          if (!/^[1-9][0-9]*$/.test(key))
            ctx.addIssue({ code: 'custom', path: [key], message: 'keys are style ids' });
        }
      })
      .default({}),

    /** Share of provider requests answered 500/502/503 without being performed. */
    fail5xxRate: rate.default(0),
    /** Share of those 5xx answers whose body is a gateway's HTML page. */
    htmlErrorShare: rate.default(0.3),
    /** Share of those 5xx answers with an empty body. */
    emptyErrorShare: rate.default(0.1),
    /** Share of successful writes performed and committed, whose connection is then cut without an answer. */
    loseResponseRate: rate.default(0),
    /** Share of successful answers sent as 200 with a truncated JSON body. */
    malformedJsonRate: rate.default(0),
    slowRate: rate.default(0),
    slowMs: count.default(2_000),
    /** Token bucket over all provider requests; exceeding it answers 429 with Retry-After. */
    rateLimit: rateLimitSchema.nullable().default(null),
    /** Limits 5xx, lost, malformed and slow faults to these endpoints; null means all. */
    faultEndpoints: z.array(endpointNameSchema).nullable().default(null),
    /** Seed of the fault PRNG, so a fault pattern can be replayed. */
    seed: z.number().int().default(1),
    /** JSON file the state is saved to after every change and loaded from at start; null keeps state in memory. */
    stateFile: z.string().min(1).nullable().default(null),
    /**
     * Bearer token for the controls under /__sim (stats, options, reset). Without one they answer
     * loopback clients only.
     */
    adminToken: z.string().min(16, 'must be at least 16 characters').nullable().default(null),
  })
  .refine((o) => o.htmlErrorShare + o.emptyErrorShare <= 1, {
    message: 'htmlErrorShare + emptyErrorShare must not exceed 1',
    path: ['emptyErrorShare'],
  });

/** Options only the starter sets: never changed over HTTP (files, credentials). */
export const FIXED_AT_START = ['stateFile', 'adminToken'] as const;

export type SimulatorOptions = z.input<typeof simulatorOptionsSchema>;
export type ResolvedSimulatorOptions = z.output<typeof simulatorOptionsSchema>;

/** Names every bad option and why, one per line: "progression.trainingMs: must not be negative". */
export function describeOptionIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'options'}: ${issue.message}`)
    .join('\n');
}

export function parseSimulatorOptions(input: SimulatorOptions): ResolvedSimulatorOptions {
  const result = simulatorOptionsSchema.safeParse(input);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => ({
      path: issue.path.length > 0 ? issue.path.join('.') : 'options',
      message: issue.message,
    }));
    throw new InputError(issues, `invalid simulator options:\n${describeOptionIssues(result.error)}`);
  }
  return result.data;
}

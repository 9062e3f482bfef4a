/**
 * Validation schemas of campaigns (manifest subjects, caller options). The shared types and pure
 * helpers are in campaign-state.ts, which workflow code imports.
 */
import { z } from 'zod';
import { genderSchema, orderIdSchema, stylesSchema } from '../../provider/request-schemas';
import { imageReferenceSchema, pipelineInputSchema, subjectIdSchema } from '../pipeline-input';
import { DEFAULT_CHILD_CHECK_MS } from './campaign-state';
import { MAX_SELFIES } from '../limits';
import { hasReservedPrefix, RESERVED_WORKFLOW_ID_PREFIXES } from '../workflow-ids';

/** Subject ids become part of child workflow ids (`<campaign>/<subject>` without encryption), so they are kept plain. */
export { subjectIdSchema };

export {
  PIPELINE_WORKFLOW_ID_PREFIX,
  TRAINING_WORKFLOW_ID_PREFIX,
  GENERATION_WORKFLOW_ID_PREFIX,
} from '../workflow-ids';

/**
 * A caller's name for a campaign, which is its workflow id. Ids with a reserved prefix are the
 * package's own (see workflow-ids.ts): a campaign named `avatar-pipeline-x` would squat the id of
 * a pipeline started with Idempotency-Key x, one named `provider-claim:…` a model's claim.
 */
export const campaignIdSchema = z
  .string({ error: 'must be text' })
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]*$/,
    'must start with a letter or digit and hold only letters, digits and . _ : -',
  )
  .refine(
    (id) => !hasReservedPrefix(id),
    `must not start with ${RESERVED_WORKFLOW_ID_PREFIXES.map((p) => `"${p}"`).join(', ')}: the package's own workflow ids use those prefixes`,
  );

/** One validated person of a campaign, as stored in the campaign's manifest file. */
export const campaignSubjectSchema = z
  .strictObject({
    subjectId: subjectIdSchema,
    gender: genderSchema,
    styles: stylesSchema,
    /** Selfies to train a model on; none when the subject generates from `modelId`. */
    images: z.array(imageReferenceSchema).max(MAX_SELFIES),
    mainImageIndex: z.number().int().nonnegative(),
    /** A DONE model at the provider (checked by the starter) to generate from instead of training. */
    modelId: orderIdSchema.optional(),
    /** Line of the source manifest this subject came from, for messages. */
    row: z.number().int().positive(),
    /** The SubjectId search attribute: the id, or its keyed hash when payloads are encrypted (set at start). */
    searchKey: z.string().min(1).optional(),
  })
  .refine((subject) => (subject.modelId === undefined) === subject.images.length > 0, {
    path: ['images'],
    message: 'must name at least one selfie to train on, or none when the subject generates from a modelId',
  });
export type CampaignSubject = z.infer<typeof campaignSubjectSchema>;

/** Options only the operator sets (the tenants file, the CLI); a caller's body naming one is refused. */
export const OPERATOR_CAMPAIGN_OPTIONS = ['fairnessWeight', 'priorityKey'] as const;
export type OperatorCampaignOption = (typeof OPERATOR_CAMPAIGN_OPTIONS)[number];

/** Why a caller may not send an operator's option. */
export function operatorSettingMessage(name: OperatorCampaignOption): string {
  return `is not a caller's option: the operator sets each tenant's ${name} (tenants file), and campaign work is shared fairly by tenant`;
}

function operatorSetting(name: OperatorCampaignOption) {
  return z
    .never({ error: operatorSettingMessage(name) })
    .optional()
    .meta({ description: `Refused: ${operatorSettingMessage(name)}` });
}

/** What a caller may tune; everything has a default. */
export const campaignOptionsSchema = z.strictObject({
  /**
   * Child pipelines running at once: `auto` (the default) sizes the window from the provider
   * queue's backlog, 429s and errors (workflows/campaign/window-controller.ts); a number caps that
   * window, or with `fixedWindow` is the window.
   */
  maxInFlight: z.union([z.literal('auto'), z.number().int().min(1).max(2000)]).optional(),
  /** Keep exactly `maxInFlight` in flight instead of sizing the window from the provider's signals. */
  fixedWindow: z.boolean().default(false),
  /** Tuning of the auto window (defaults suit the provider's real timescale; benchmarks scale them). */
  autoWindow: z
    .strictObject({
      sampleEveryMs: z.number().int().min(100).max(600_000),
      initial: z.number().int().min(1).max(2000),
      lowBacklogMs: z.number().int().nonnegative(),
      highBacklogMs: z.number().int().positive(),
      workerBusyMs: z.number().int().positive(),
    })
    .partial()
    .optional(),
  // A campaign's fairness weight and priority are the operator's (campaign-share.ts): named here
  // only so that a caller who sends them hears why they are refused.
  fairnessWeight: operatorSetting('fairnessWeight'),
  priorityKey: operatorSetting('priorityKey'),
  /** Subjects started per workflow run before continuing as new (history stays bounded). */
  subjectsPerRun: z.number().int().min(1).max(5000).default(400),
  /** Subjects read from the manifest file per activity. */
  pageSize: z.number().int().min(1).max(1000).default(200),
  /**
   * How long a subject may go unheard before the campaign asks Temporal whether its pipeline is
   * still open: a pipeline that was terminated or timed out never reports its end.
   */
  childCheckMs: z.number().int().min(1000).max(86_400_000).default(DEFAULT_CHILD_CHECK_MS),
  // The same fields, defaults included, as a single pipeline's request.
  trainingDeadlineMs: pipelineInputSchema.shape.trainingDeadlineMs,
  generationDeadlineMs: pipelineInputSchema.shape.generationDeadlineMs,
  polling: pipelineInputSchema.shape.polling,
  /** Every subject's run waits for a person's decisions once generated, as a single run's `review`. */
  review: pipelineInputSchema.shape.review,
});
export type CampaignOptions = z.input<typeof campaignOptionsSchema>;

export * from './campaign-state';

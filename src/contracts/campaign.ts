/**
 * Validation schemas of campaigns (manifest subjects, caller options). The shared types and pure
 * helpers are in campaign-state.ts, which workflow code imports.
 */
import { z } from 'zod';
import { genderSchema, stylesSchema } from '../provider/request-schemas';
import { imageReferenceSchema, pipelineInputSchema } from './pipeline-input';
import { MAX_SELFIES } from './limits';

/** Subject ids become part of child workflow ids (`<campaign>/<subject>` without encryption), so they are kept plain. */
export const subjectIdSchema = z
  .string({ error: 'must be text' })
  .trim()
  .min(1, { error: 'must not be empty', abort: true })
  .max(128, { error: 'must be at most 128 characters', abort: true })
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._@+-]*$/,
    'must start with a letter or digit and hold only letters, digits and . _ @ + -',
  );

/** One validated person of a campaign, as stored in the campaign's manifest file. */
export const campaignSubjectSchema = z.strictObject({
  subjectId: subjectIdSchema,
  gender: genderSchema,
  styles: stylesSchema,
  images: z.array(imageReferenceSchema).min(1).max(MAX_SELFIES),
  mainImageIndex: z.number().int().nonnegative(),
  /** Line of the source manifest this subject came from, for messages. */
  row: z.number().int().positive(),
  /** The SubjectId search attribute: the id, or its keyed hash when payloads are encrypted (set at start). */
  searchKey: z.string().min(1).optional(),
});
export type CampaignSubject = z.infer<typeof campaignSubjectSchema>;

/** What a caller may tune; everything has a default. */
export const campaignOptionsSchema = z.strictObject({
  /** Child pipelines running at once. */
  maxInFlight: z.number().int().min(1).max(2000).optional(),
  /** Temporal priority of campaign work (1 highest … 5 lowest); interactive pipelines use the default 3. */
  priorityKey: z.number().int().min(1).max(5).default(4),
  /** Subjects started per workflow run before continuing as new (history stays bounded). */
  subjectsPerRun: z.number().int().min(1).max(5000).default(400),
  /** Subjects read from the manifest file per activity. */
  pageSize: z.number().int().min(1).max(1000).default(200),
  // The same fields, defaults included, as a single pipeline's request.
  trainingDeadlineMs: pipelineInputSchema.shape.trainingDeadlineMs,
  generationDeadlineMs: pipelineInputSchema.shape.generationDeadlineMs,
  polling: pipelineInputSchema.shape.polling,
});
export type CampaignOptions = z.input<typeof campaignOptionsSchema>;

export * from './campaign-state';

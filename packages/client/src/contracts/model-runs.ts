/**
 * The two halves of a pipeline as runs of their own: training a model (selfies in, a DONE model
 * out) and generating styles under a model that is already DONE. A full pipeline is one of each.
 */
import { z } from 'zod';
import { genderSchema, orderIdSchema, stylesSchema } from '../provider/request-schemas';
import { MAX_STYLES } from './limits';
import type { RunChecks } from './quality-checks';
import {
  deadlineMsSchema,
  pipelineInputSchema,
  pollingOptionsSchema,
  subjectIdSchema,
} from './pipeline-input';
import type { GenerationResult, PipelineResult } from './pipeline-state';

export const trainingInputSchema = z
  .strictObject({
    // The training half of a pipeline's request: the same fields, rules and defaults.
    images: pipelineInputSchema.shape.images,
    /** Recorded on the model order (the provider asks for them at creation); generate any styles later. */
    styles: pipelineInputSchema.shape.styles,
    gender: pipelineInputSchema.shape.gender,
    mainImageIndex: pipelineInputSchema.shape.mainImageIndex,
    subjectId: pipelineInputSchema.shape.subjectId,
    trainingDeadlineMs: pipelineInputSchema.shape.trainingDeadlineMs,
    polling: pipelineInputSchema.shape.polling,
  })
  .refine((input) => input.mainImageIndex < input.images.length, {
    path: ['mainImageIndex'],
    message: 'must point at one of the images',
  });
export type TrainingRequest = z.input<typeof trainingInputSchema>;
export type TrainingInput = z.output<typeof trainingInputSchema>;
/** What the training workflow receives: the request plus the provider task queue the starter resolved. */
export type TrainingWorkflowInput = TrainingInput & {
  tenant: string;
  providerTaskQueue: string;
  /** The checks the run makes (SELFIE_CHECKS; AVATAR_CHECKS records the person's face for later runs); absent: none. */
  checks?: RunChecks;
};

/** A trained model: generate under it with a generation run, as often as wanted. */
export interface TrainingResult {
  workflowId: string;
  subjectId?: string;
  modelId: number;
  status: 'DONE';
}

export const generationInputSchema = z.strictObject({
  /** A model at the provider (parent 0) that is DONE. */
  modelId: orderIdSchema,
  styles: stylesSchema.max(MAX_STYLES, `must name at most ${MAX_STYLES} styles`),
  /** The gender the model was trained for. */
  gender: genderSchema,
  subjectId: subjectIdSchema.optional(),
  generationDeadlineMs: deadlineMsSchema.default(60 * 60 * 1000),
  polling: pollingOptionsSchema.default(pollingOptionsSchema.parse({})),
  review: pipelineInputSchema.shape.review,
  /**
   * Set on a retry: the run retried and the styles it already has DONE, which are not generated
   * again and appear in this run's result as they were.
   */
  retry: z
    .strictObject({
      of: z.string().min(1).max(400),
      kept: z.array(z.custom<GenerationResult>()).default([]),
    })
    .optional(),
});
export type GenerationRequest = z.input<typeof generationInputSchema>;
export type GenerationInput = z.output<typeof generationInputSchema>;
/**
 * Like the pipeline's (PipelineWorkflowInput): the provider task queue and ARCHIVE_AVATARS, resolved
 * by the starter, and for a campaign's subject that names a modelId, the campaign to report to.
 */
export type GenerationWorkflowInput = GenerationInput & {
  /** Whose run it is (as PipelineWorkflowInput's). */
  tenant: string;
  providerTaskQueue: string;
  archiveAvatars?: boolean;
  campaignId?: string;
  /** The avatar checks the run makes (AVATAR_CHECKS); absent: none. */
  checks?: RunChecks;
};

/** A generation run answers the pipeline's result shape: the model and one entry per style. */
export type GenerationRunResult = PipelineResult;

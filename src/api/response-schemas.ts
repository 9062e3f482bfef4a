import { z } from 'zod';
import { reviewOutcomeSchema, reviewProgressSchema } from '@avatar-pipeline/client/contracts/review';
import {
  PIPELINE_STAGES,
  STYLE_STAGES,
  type AvatarRef,
  type GenerationResult,
  type PipelineProgress,
  type PipelineResult,
  type StyleAvatar,
  type StyleProgress,
} from '@avatar-pipeline/client/contracts/pipeline-state';
import type { TrainingResult } from '@avatar-pipeline/client/contracts/model-runs';
import type { AvatarCheck } from '@avatar-pipeline/client/contracts/quality-checks';
import type { Style } from '@avatar-pipeline/client/provider/schemas';
import { answering } from './contract-schema';

/**
 * Response shapes, used both to serialize and to document the API, each tied to the contract type
 * it answers (see answering). Where an answer leaves a field of the workflow state out, the type
 * says which.
 */
export const linksSchema = z
  .object({
    self: z.string().describe('This pipeline in the API'),
    cancel: z.string().describe('POST here to cancel it'),
    temporalUi: z
      .string()
      .optional()
      .describe('The run in the Temporal Web UI (when TEMPORAL_UI_URL is set)'),
  })
  .meta({ id: 'PipelineLinks' });

export const startedSchema = z
  .object({
    workflowId: z.string(),
    created: z.boolean().describe('false when an earlier request with the same Idempotency-Key started it'),
    links: linksSchema,
  })
  .meta({ id: 'PipelineStarted' });

const avatarCheckSchema = answering<AvatarCheck>()(
  z.object({
    passed: z.boolean(),
    reasons: z.array(z.string()).describe('Why it failed, one reason each; empty when it passed'),
    notChecked: z.array(z.string()).optional().describe('Checks that could not be made, and why'),
  }),
);

/** An avatar as the API serves it: with a link to its archived copy, while that copy exists. */
type ServedAvatar = AvatarRef & { archivedUrl?: string };

const avatarSchema = answering<ServedAvatar>()(
  z.object({
    avatarId: z.number(),
    imageUrl: z.string().describe('The provider\u2019s URL, which may expire'),
    thumbnailUrl: z.string().optional(),
    archiveKey: z.string().optional().describe('Key of the archived copy in the store'),
    archivedUrl: z
      .string()
      .optional()
      .describe('A signed, expiring link to the archived copy (absent once the subject is erased)'),
    check: avatarCheckSchema
      .optional()
      .describe('The avatar checks\u2019 verdict (AVATAR_CHECKS); absent when the run checked no avatars'),
  }),
);

const generationSchema = answering<GenerationResult>()(
  z.object({
    styleId: z.number(),
    orderId: z.number().optional(),
    status: z.enum(['DONE', 'ERROR', 'CANCELLED']),
    avatars: z.array(avatarSchema),
    notArchived: z.array(z.number()).optional().describe('Avatars whose copy into the store failed'),
    attempts: z
      .number()
      .optional()
      .describe(
        'Orders made for the style (AVATAR_CHECKS): more than 1 when its avatars failed their checks',
      ),
    replacedOrders: z
      .array(z.object({ orderId: z.number(), failedAvatars: z.number() }))
      .optional()
      .describe('Earlier orders of the style whose avatars failed their checks'),
    error: z.string().optional(),
  }),
);

export const pipelineResultSchema = answering<PipelineResult>()(
  z
    .object({
      workflowId: z.string(),
      subjectId: z.string().optional(),
      modelId: z.number(),
      status: z.enum(['DONE', 'PARTIAL']),
      generations: z.array(generationSchema),
      review: reviewOutcomeSchema
        .optional()
        .describe(
          'What review decided (runs that asked for review); generations then hold approved work only',
        ),
    })
    .meta({ id: 'PipelineResult' }),
);

/** A training run's result: the model, DONE, ready to generate under. */
export const trainingResultSchema = answering<TrainingResult>()(
  z
    .object({
      workflowId: z.string(),
      subjectId: z.string().optional(),
      modelId: z.number(),
      status: z.literal('DONE'),
    })
    .meta({ id: 'TrainingResult' }),
);

/** A done style's avatar as progress serves it: with a link to its archived copy, while that copy exists. */
type ServedStyleAvatar = StyleAvatar & { archivedUrl?: string };
type ServedStyleProgress = Omit<StyleProgress, 'avatars'> & { avatars?: ServedStyleAvatar[] };

const styleAvatarSchema = answering<ServedStyleAvatar>()(
  z.object({
    avatarId: z.number(),
    archiveKey: z.string().optional().describe('Key of the archived copy in the store'),
    archivedUrl: z
      .string()
      .optional()
      .describe('A signed, expiring link to the archived copy (absent once the subject is erased)'),
    check: avatarCheckSchema
      .optional()
      .describe('The avatar checks\u2019 verdict (AVATAR_CHECKS); absent when the run checked no avatars'),
  }),
);

const styleProgressSchema = answering<ServedStyleProgress>()(
  z.object({
    styleId: z.number(),
    stage: z.enum(STYLE_STAGES),
    attempt: z
      .number()
      .optional()
      .describe('Which order of the style this is, from 1 (AVATAR_CHECKS regenerations)'),
    orderId: z.number().optional(),
    providerStatus: z.string().optional().describe("The provider's last status (unknown values kept)"),
    progress: z.number().optional(),
    avatarCount: z.number().optional(),
    avatars: z
      .array(styleAvatarSchema)
      .optional()
      .describe('Once the style is done: its avatars, each with a link to its archived copy'),
    error: z.string().optional(),
  }),
);

/**
 * The pipeline's progress without its run's ids (the status answer names the run already), but with
 * its subject: watchers see whom a run is for while it runs, before its result names them.
 */
export const pipelineProgressSchema = answering<
  Omit<PipelineProgress, 'workflowId' | 'campaignId' | 'styles'> & {
    styles: ServedStyleProgress[];
  }
>()(
  z
    .object({
      stage: z.enum(PIPELINE_STAGES),
      subjectId: z.string().optional().describe('The person the run is for, when the start named one'),
      modelId: z.number().optional(),
      uploads: z.object({ done: z.number(), total: z.number() }),
      training: z.object({
        providerStatus: z.string().optional(),
        progress: z.number().optional(),
        polls: z.number(),
      }),
      styles: z.array(styleProgressSchema),
      review: reviewProgressSchema.optional().describe('The review gate, when the run asked for review'),
      error: z.string().optional(),
    })
    .meta({ id: 'PipelineProgress' }),
);

export const PIPELINE_STATES = [
  'running',
  /** Running, held at the review gate for a person's decisions. */
  'awaiting-review',
  'completed',
  'failed',
  'cancelled',
  'terminated',
  'timed_out',
] as const;
export type PipelineState = (typeof PIPELINE_STATES)[number];

/** A style as the provider names it. */
const namedStyleSchema = answering<Pick<Style, 'id' | 'name'>>()(
  z.object({ id: z.number(), name: z.string() }),
);

export const stylesSchema = z.object({ styles: z.array(namedStyleSchema) }).meta({ id: 'Styles' });

export const pipelineStatusSchema = z
  .object({
    workflowId: z.string(),
    runId: z.string(),
    state: z.enum(PIPELINE_STATES),
    startedAt: z.string(),
    closedAt: z.string().optional(),
    progress: pipelineProgressSchema
      .optional()
      .describe('Live progress; missing when no worker answered the query in time'),
    result: z
      .union([pipelineResultSchema, trainingResultSchema])
      .optional()
      .describe('When completed: a training run answers its model alone'),
    error: z
      .object({ message: z.string(), type: z.string().optional() })
      .optional()
      .describe('When failed, cancelled, terminated or timed out'),
    callback: z
      .object({ state: z.enum(['pending', 'delivered', 'failed']) })
      .optional()
      .describe(
        "Delivery of the run's webhook events (callbackUrl and registered endpoints) once the run has ended: pending while any is still being tried",
      ),
    retry: z
      .object({ workflowId: z.string(), state: z.enum(PIPELINE_STATES) })
      .optional()
      .describe(
        'The retry of the styles that did not end DONE (POST /v1/pipelines/{workflowId}/retry), once one was started: asking again answers this one',
      ),
    styleNames: z
      .array(namedStyleSchema)
      .optional()
      .describe(
        "The names of the run's styles, as GET /v1/styles lists them (a shared link's token cannot read that list); missing while the provider cannot be asked",
      ),
    linksExpireAt: z.iso
      .datetime()
      .optional()
      .describe(
        'When the archivedUrl links in this answer stop working (API_ARCHIVE_LINK_TTL_SECONDS after it was made); present when it holds any. Ask again before then for fresh ones',
      ),
    links: linksSchema,
  })
  .meta({ id: 'PipelineStatus' });
export type PipelineStatus = z.infer<typeof pipelineStatusSchema>;

export const cancelAcceptedSchema = z
  .object({ workflowId: z.string(), state: z.literal('cancelling'), links: linksSchema })
  .meta({ id: 'PipelineCancelling' });

export const healthSchema = z.object({ status: z.string() });

export const pipelineIdParamsSchema = z.object({
  id: z.string().min(1).max(300).describe('The workflowId answered by POST /v1/pipelines'),
});

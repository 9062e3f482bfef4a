/**
 * The review gate: a run that asks for review waits, once its styles are generated, for a person
 * to approve, reject or regenerate each style (or approve and reject single avatars). Only approved
 * work ends in the result. Schemas for what starters and reviewers send; plain types for what the
 * run reports. Imported by workflow code: zod and types only.
 */
import { z } from 'zod';
import { MAX_DEADLINE_MS, MAX_STYLES } from './limits';

const HOUR_MS = 60 * 60 * 1000;

const reviewDurationMs = z
  .number({ error: 'must be a number of milliseconds' })
  .int('must be an integer')
  .positive('must be positive')
  .max(MAX_DEADLINE_MS, `must be at most ${MAX_DEADLINE_MS} (7 days)`);

/** What a start asks of the gate. Timers are durable: they hold through worker and server restarts. */
export const reviewOptionsSchema = z
  .strictObject({
    required: z.boolean({ error: 'must be true or false' }),
    /** How long the run waits for decisions once its styles are generated. */
    deadlineMs: reviewDurationMs.default(72 * HOUR_MS),
    /** What every style still undecided at the deadline becomes. */
    onDeadline: z.enum(['approve', 'reject'], { error: 'must be "approve" or "reject"' }).default('reject'),
    /** A `review.reminder` event this long after the gate opens, and again every time it passes, until decided. */
    reminderEveryMs: reviewDurationMs.default(24 * HOUR_MS),
    /** One `review.reminder` marked `escalation: true` this long after the gate opens; none when absent. */
    escalateAfterMs: reviewDurationMs
      .optional()
      .describe(
        'One reminder marked as an escalation this long after the gate opens; must be shorter than deadlineMs',
      ),
  })
  .refine((r) => r.escalateAfterMs === undefined || r.escalateAfterMs < r.deadlineMs, {
    path: ['escalateAfterMs'],
    message: 'must be shorter than deadlineMs (an escalation after the deadline is never sent)',
  });
export type ReviewRequestOptions = z.input<typeof reviewOptionsSchema>;
export type ReviewOptions = z.output<typeof reviewOptionsSchema>;

export const REVIEW_DECISIONS = ['approve', 'reject', 'regenerate'] as const;
export type ReviewDecisionKind = (typeof REVIEW_DECISIONS)[number];

const positiveId = (what: string) =>
  z
    .number({ error: `must be a ${what} id (a number)` })
    .int('must be an integer')
    .positive('must be positive');

const decisionFields = {
  styleId: positiveId('style'),
  /**
   * The order the decision is about (the style's current one when absent). A repeated
   * `regenerate` that names the order it replaced is recognised as the same decision.
   */
  orderId: positiveId('order').optional(),
};

/**
 * One decision: approve or reject a whole style or (with avatarId) one of its avatars, or
 * regenerate a whole style. Told apart by `decision`, so the OpenAPI document says exactly which
 * fields go with which.
 */
export const reviewDecisionSchema = z.discriminatedUnion(
  'decision',
  [
    z.strictObject({
      ...decisionFields,
      /** One avatar of the style; the style's other avatars stay as they are. */
      avatarId: positiveId('avatar').optional(),
      decision: z.enum(['approve', 'reject']),
    }),
    z.strictObject(
      { ...decisionFields, decision: z.literal('regenerate') },
      {
        error: (issue) =>
          issue.code === 'unrecognized_keys' && issue.keys.includes('avatarId')
            ? 'regenerate applies to a whole style: leave avatarId out'
            : undefined,
      },
    ),
  ],
  { error: 'must be "approve", "reject" or "regenerate"' },
);
/** A decision as workflows and reviewers handle it (what reviewDecisionSchema lets through). */
export interface ReviewDecision {
  styleId: number;
  avatarId?: number;
  decision: ReviewDecisionKind;
  orderId?: number;
}

export const reviewDecisionsSchema = z.strictObject({
  decisions: z
    .array(reviewDecisionSchema)
    .min(1, 'must hold at least one decision')
    .max(MAX_STYLES * 20, `must hold at most ${MAX_STYLES * 20} decisions`),
});
export interface ReviewDecisions {
  decisions: ReviewDecision[];
}

/** Who sent decisions, for the audit: a token's or link's name, never its secret. */
export interface Reviewer {
  /** e.g. `token:ops` (an API token's name), `link:<id>` (a review link), `cli`. */
  via: string;
}

/** What the update carries: the decisions and who sent them. */
export interface ReviewSubmission extends ReviewDecisions {
  reviewer: Reviewer;
}

export const STYLE_REVIEW_STATES = [
  /** Not generated yet; decisions on the whole style are kept for when it is. */
  'pending',
  /** Its avatars wait for decisions. */
  'awaiting',
  'approved',
  'rejected',
  /** Ordered again on a reviewer's word; reviewed again once its new avatars are in. */
  'regenerating',
  /** Its generation failed: nothing to review. */
  'failed',
] as const;
export type StyleReviewState = (typeof STYLE_REVIEW_STATES)[number];

export const styleReviewSchema = z.object({
  styleId: z.number(),
  state: z.enum(STYLE_REVIEW_STATES),
  orderId: z.number().optional().describe('The order whose avatars are under review'),
  avatars: z
    .array(z.object({ avatarId: z.number(), decision: z.enum(['approve', 'reject']) }))
    .describe('Decisions on single avatars of that order'),
  kept: z
    .enum(REVIEW_DECISIONS)
    .optional()
    .describe('A decision on the whole style that waits for its avatars'),
  regeneratedOrders: z.array(z.number()).describe('Orders replaced on a reviewer\u2019s word'),
});
export type StyleReview = z.output<typeof styleReviewSchema>;

/** The gate as the run's progress shows it. */
export const reviewProgressSchema = z.object({
  state: z
    .enum(['waiting', 'open', 'closed'])
    .describe('waiting: the run is still generating; open: decisions awaited; closed: every style decided'),
  openedAt: z.string().optional().describe('When the gate opened (ISO 8601)'),
  deadlineAt: z.string().optional().describe('When the deadline decides what is left (ISO 8601)'),
  onDeadline: z.enum(['approve', 'reject']),
  deadlinePassed: z.boolean().optional().describe('The deadline decided the styles left undecided'),
  styles: z.array(styleReviewSchema),
});
export type ReviewProgress = z.output<typeof reviewProgressSchema>;

/** The review part of a reviewed run's result. */
export const reviewOutcomeSchema = z.object({
  approved: z.array(z.number()),
  rejected: z.array(z.number()),
  regenerated: z
    .array(z.object({ styleId: z.number(), orderIds: z.array(z.number()) }))
    .describe('Orders replaced on a reviewer\u2019s word, by style'),
  deadlinePassed: z.boolean().optional().describe('The deadline, not a person, decided what was left'),
});
export type ReviewOutcome = z.output<typeof reviewOutcomeSchema>;

/** What an accepted update answers: each decision's effect, in order, and the gate after them. */
export interface ReviewAnswer {
  results: { index: number; effect: 'applied' | 'kept' | 'repeated' }[];
  review: ReviewProgress;
}

/** How many runs one batch of a campaign's reviews may decide on. */
export const MAX_REVIEWS_PER_BATCH = 100;

const runIdField = z.string().min(1, 'must not be empty').max(300, 'must be at most 300 characters');

/**
 * Decisions for many of a campaign's runs at once: for each run, its decisions, or one decision
 * (`approve` or `reject`) for every style it has under review.
 */
export const campaignReviewsSchema = z.strictObject({
  reviews: z
    .array(
      z.union([
        z.strictObject({ workflowId: runIdField, decisions: reviewDecisionsSchema.shape.decisions }),
        z.strictObject({
          workflowId: runIdField,
          decision: z
            .enum(['approve', 'reject'], { error: 'must be "approve" or "reject"' })
            .describe('For every style of the run that awaits a decision, or waits for its avatars'),
        }),
      ]),
    )
    .min(1, 'must name at least one run')
    .max(MAX_REVIEWS_PER_BATCH, `must name at most ${MAX_REVIEWS_PER_BATCH} runs`),
});
export type CampaignReviews = z.output<typeof campaignReviewsSchema>;

/**
 * What one run of a batch came to: its decisions taken; unchanged (a whole-run decision for a run
 * with nothing left to decide: decided already, or ended); or refused, with the fields named.
 */
export interface CampaignReviewResult {
  workflowId: string;
  effect: 'decided' | 'unchanged' | 'refused';
  /** Decisions taken now or kept (repeats left out). */
  decided: number;
  issues?: { path: string; message: string }[];
  review?: ReviewProgress;
}

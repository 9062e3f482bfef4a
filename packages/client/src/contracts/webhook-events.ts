/**
 * The webhook events: their names, payloads (zod schemas, which the OpenAPI document publishes
 * as `webhooks`) and the envelope every delivery carries. Workflows import the types only.
 *
 * Every delivery's body is `{ id, type, timestamp, sequence, source, data }`. `id` is also the
 * `webhook-id` header: the same for every attempt and every redelivery of one event. `sequence`
 * counts the events of one source (a run or a campaign) from 1, in the order they happened;
 * deliveries to one endpoint keep that order (a later event waits while an earlier one is retried).
 */
import { z } from 'zod';
import { reviewDecisionSchema, reviewOutcomeSchema, reviewProgressSchema, styleReviewSchema } from './review';

export const WEBHOOK_EVENT_TYPES = [
  'pipeline.started',
  'training.completed',
  'training.failed',
  'style.completed',
  'style.failed',
  'pipeline.completed',
  'pipeline.failed',
  'pipeline.cancelled',
  'review.requested',
  'review.reminder',
  'review.decided',
  'campaign.progress',
  'campaign.completed',
  'budget.threshold',
  'budget.exhausted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const errorSchema = z.object({
  message: z.string(),
  type: z.string().optional().describe('The failure type, e.g. NoStyleSucceeded'),
});

const runFields = {
  workflowId: z.string().describe('The run (pipeline) the event belongs to'),
  subjectId: z.string().optional(),
  campaignId: z.string().optional(),
};

const avatarSchema = z.object({
  avatarId: z.number(),
  imageUrl: z.string().describe('The provider\u2019s URL, which may expire'),
  thumbnailUrl: z.string().optional(),
  archiveKey: z.string().optional().describe('Key of the archived copy in the blob store'),
  archivedUrl: z
    .string()
    .optional()
    .describe('A signed, expiring link to the archived copy, made at each delivery attempt'),
  check: z
    .object({ passed: z.boolean(), reasons: z.array(z.string()), notChecked: z.array(z.string()).optional() })
    .optional()
    .describe('The avatar checks\u2019 verdict (AVATAR_CHECKS); absent when the run checked no avatars'),
});

const attemptFields = {
  attempts: z
    .number()
    .optional()
    .describe('Orders made for the style (AVATAR_CHECKS): more than 1 when its avatars failed their checks'),
  replacedOrders: z
    .array(z.object({ orderId: z.number(), failedAvatars: z.number() }))
    .optional()
    .describe('Earlier orders of the style whose avatars failed their checks'),
};

const generationSchema = z.object({
  styleId: z.number(),
  orderId: z.number().optional(),
  status: z.enum(['DONE', 'ERROR', 'CANCELLED']),
  avatars: z.array(avatarSchema),
  notArchived: z.array(z.number()).optional(),
  ...attemptFields,
  error: z.string().optional(),
});

/** A review's state in an event: each style's state and order, not its avatars' decisions. */
const reviewSummarySchema = reviewProgressSchema.omit({ openedAt: true, styles: true }).extend({
  styles: z.array(styleReviewSchema.pick({ styleId: true, state: true, orderId: true })),
});

const countsSchema = z.record(z.string(), z.number()).describe('Subjects by status');

const budgetFields = {
  tenant: z.string(),
  period: z.string().describe('`2026-12` for a monthly budget, `all` without a period'),
  credits: z.number().describe('The budget'),
  spent: z.number().describe('Credits spent this period'),
  reserved: z.number().describe('Credits unfinished runs hold reserved'),
};

/** The `data` of each event type. */
export const WEBHOOK_EVENT_DATA = {
  'pipeline.started': z.object({ ...runFields, styles: z.array(z.number()) }),
  'training.completed': z.object({ ...runFields, modelId: z.number() }),
  'training.failed': z.object({ ...runFields, modelId: z.number().optional(), error: errorSchema }),
  'style.completed': z.object({
    ...runFields,
    modelId: z.number(),
    styleId: z.number(),
    orderId: z.number().optional(),
    avatars: z.array(avatarSchema),
    notArchived: z.array(z.number()).optional(),
    ...attemptFields,
  }),
  'style.failed': z.object({
    ...runFields,
    modelId: z.number(),
    styleId: z.number(),
    orderId: z.number().optional(),
    avatars: z
      .array(avatarSchema)
      .optional()
      .describe('When every avatar failed its checks: the last order\u2019s avatars, each with its verdict'),
    ...attemptFields,
    error: errorSchema,
  }),
  'pipeline.completed': z.object({
    ...runFields,
    result: z.object({
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
    }),
  }),
  'pipeline.failed': z.object({ ...runFields, error: errorSchema }),
  'pipeline.cancelled': z.object(runFields),
  'review.requested': z.object({ ...runFields, review: reviewSummarySchema }),
  'review.reminder': z.object({
    ...runFields,
    escalation: z
      .boolean()
      .describe('true once, at escalateAfterMs: time to hand the review to someone else'),
    review: reviewSummarySchema,
  }),
  'review.decided': z.object({
    ...runFields,
    reviewer: z.string().describe('Who decided: `token:<name>`, `link:<id>`, `cli`, or `deadline`'),
    decisions: z.array(reviewDecisionSchema),
    review: reviewSummarySchema,
  }),
  'campaign.progress': z.object({
    campaignId: z.string(),
    state: z.string(),
    total: z.number(),
    counts: countsSchema,
  }),
  'campaign.completed': z.object({
    campaignId: z.string(),
    state: z.enum(['completed', 'cancelled']),
    total: z.number(),
    counts: countsSchema,
  }),
  'budget.threshold': z.object({
    ...budgetFields,
    percent: z.number().describe('The alert percentage of the budget that spending reached (budget.alerts)'),
  }),
  'budget.exhausted': z.object(budgetFields),
} satisfies Record<WebhookEventType, z.ZodType>;

export type WebhookEventData<T extends WebhookEventType = WebhookEventType> = z.output<
  (typeof WEBHOOK_EVENT_DATA)[T]
>;

/** An event as its workflow announces it (the delivery workflow adds `id` and `sequence`). */
export type AnnouncedEvent = {
  [T in WebhookEventType]: { type: T; timestamp: string; data: WebhookEventData<T> };
}[WebhookEventType];

/** The JSON body of every delivery. */
export const webhookEnvelopeSchema = (type: WebhookEventType) =>
  z
    .object({
      id: z.string().describe('The webhook-id: the same for every attempt and redelivery of this event'),
      type: z.literal(type),
      timestamp: z.string().describe('When it happened (ISO 8601)'),
      sequence: z
        .number()
        .int()
        .min(1)
        .describe('1, 2, 3, \u2026 per source (run or campaign), in the order the events happened'),
      source: z.string().describe('The workflow id of the run or campaign'),
      data: WEBHOOK_EVENT_DATA[type],
    })
    .strict();

export type WebhookEnvelope = AnnouncedEvent & { id: string; sequence: number; source: string };

/**
 * An event filter: exact names, or `<group>.*` (e.g. `style.*`), or `*` for everything. Unknown
 * names and patterns that match no event are refused where filters come in (the API, the CLI).
 */
export const eventFilterSchema = z
  .array(z.string().max(64))
  .min(1, 'must name at least one event')
  .max(WEBHOOK_EVENT_TYPES.length + 1)
  .superRefine((filter, ctx) => {
    filter.forEach((entry, index) => {
      if (matchingEvents([entry]).length > 0) return;
      ctx.addIssue({
        code: 'custom',
        path: [index],
        message: `"${entry}" is not an event and matches none (events: ${WEBHOOK_EVENT_TYPES.join(', ')}; or <group>.* or *)`,
      });
    });
  });

/** The event types a filter lets through. */
export function matchingEvents(filter: readonly string[]): WebhookEventType[] {
  return WEBHOOK_EVENT_TYPES.filter((type) => filter.some((entry) => filterMatches(entry, type)));
}

export function filterMatches(entry: string, type: string): boolean {
  if (entry === '*' || entry === type) return true;
  return entry.endsWith('.*') && type.startsWith(entry.slice(0, -1));
}

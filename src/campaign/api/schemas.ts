import { z } from 'zod';
import type { ManifestIssue } from '../manifest';
import {
  CAMPAIGN_STATES,
  campaignIdSchema,
  campaignOptionsSchema,
  type CampaignProgress,
  type CampaignSummary,
  type SubjectCounts,
  type SubjectSummary,
} from '@avatar-pipeline/client/contracts/campaign/campaign';
import { answering } from '../../api/contract-schema';
import { MAX_LISTED_ISSUES } from '../../api/api-error';
import { MAX_MANIFEST_ROWS } from '../manifest';
import { PIPELINE_STATES } from '../../api/response-schemas';

/** The campaign API's answers, each tied to the contract type it answers (see answering). */

const countsSchema = answering<SubjectCounts>()(
  z.object({
    pending: z.number(),
    running: z.number(),
    done: z.number(),
    partial: z.number(),
    failed: z.number(),
    cancelled: z.number(),
  }),
);

export const campaignProgressSchema = answering<CampaignProgress>()(
  z
    .object({
      campaignId: z.string(),
      state: z.enum(CAMPAIGN_STATES),
      pausedFor: z
        .string()
        .optional()
        .describe(
          'Why a paused campaign paused itself: its tenant\u2019s budget refused the next subject. Raise the budget, then resume (or cancel)',
        ),
      total: z.number(),
      counts: countsSchema,
      maxInFlight: z.number().describe("The in-flight window's cap (auto) or size (fixed)"),
      window: z
        .object({
          mode: z.enum(['auto', 'fixed']),
          size: z.number().describe('Subjects the campaign keeps in flight now'),
          cap: z.number().optional(),
          reason: z
            .string()
            .describe('Why the window has this size (growing, holding, backlog, rate-limited, …)'),
          detail: z.string().describe('The figures behind the reason'),
          providerRps: z
            .number()
            .optional()
            .describe(
              "Provider requests per second accepted (not 429) at the auto window's last sample; with quotaRps, once the window has measured both",
            ),
          quotaRps: z
            .number()
            .optional()
            .describe(
              "The provider's quota in requests per second (PROVIDER_MAX_RPS) that providerRps counts against",
            ),
        })
        .describe('The in-flight window now and why'),
      inFlight: z.array(z.string()).describe('Subjects running now (up to 50 listed)'),
      awaitingReview: z
        .object({
          count: z.number(),
          subjects: z.array(z.string()).describe('Up to 50 of them'),
        })
        .optional()
        .describe(
          'Campaigns with review: subjects whose runs wait for decisions (counted as running, outside the window)',
        ),
      run: z.number().describe('Workflow runs so far (continue-as-new keeps each history small)'),
      startedAt: z.string(),
      elapsedMs: z.number(),
      throughputPerMinute: z.number().describe('Subjects finished per minute, recently'),
      etaMs: z.number().optional().describe('Estimated time to finish, when known'),
      recentFailures: z.array(z.object({ subjectId: z.string(), error: z.string() })),
    })
    .meta({ id: 'CampaignProgress' }),
);

export const campaignStatusSchema = z
  .object({
    campaignId: z.string(),
    status: z.string().describe('Temporal state: RUNNING, COMPLETED, FAILED, TERMINATED, …'),
    progress: campaignProgressSchema.optional(),
    links: z.record(z.string(), z.string()),
  })
  .meta({ id: 'CampaignStatus' });

const campaignListItemSchema = z.object({
  campaignId: z.string(),
  state: z
    .enum(PIPELINE_STATES)
    .describe(
      'Temporal\u2019s state of the campaign\u2019s workflow (a paused campaign is running; GET /v1/campaigns/{id} tells)',
    ),
  total: z.number().optional().describe('Subjects started'),
  startedAt: z.string(),
  closedAt: z.string().optional(),
  links: z.object({ self: z.string(), events: z.string() }),
});

/** GET /v1/campaigns: one page of the caller's campaigns. */
export const campaignListSchema = z
  .object({
    campaigns: z.array(campaignListItemSchema).describe('Newest first'),
    nextCursor: z.string().optional().describe('Pass as `cursor` for the next page; absent on the last page'),
  })
  .meta({ id: 'CampaignList' });

const subjectSchema = answering<SubjectSummary>()(
  z.object({
    subjectId: z.string(),
    status: z.enum(['PENDING', 'DONE', 'PARTIAL', 'FAILED', 'CANCELLED']),
    workflowId: z.string(),
    modelId: z.number().optional(),
    avatarCount: z.number().optional(),
    error: z.string().optional().describe('The pipeline’s message, quoting the provider’s'),
    attempts: z.number().optional(),
  }),
);

export const campaignSummarySchema = answering<CampaignSummary>()(
  z
    .object({
      workflowId: z.string(),
      status: z.enum(['COMPLETED', 'CANCELLED']),
      total: z.number(),
      succeeded: z.number(),
      failed: z.number(),
      partial: z.number(),
      cancelled: z.number(),
      startedAt: z.string(),
      finishedAt: z.string(),
      subjects: z.array(subjectSchema),
    })
    .meta({ id: 'CampaignSummary' }),
);

const manifestIssueSchema = answering<ManifestIssue>()(
  z.object({
    row: z.number(),
    field: z.string(),
    message: z.string(),
    subjectId: z.string().optional(),
  }),
);

export const campaignStartedSchema = z
  .object({
    campaignId: z.string(),
    total: z.number().describe('Subjects started'),
    skipped: z
      .array(manifestIssueSchema)
      .describe(`Rows refused and left out (skipInvalid): the first ${MAX_LISTED_ISSUES} problems`),
    skippedTotal: z.number().describe('Problems found in the rows left out, listed or not'),
    links: z.record(z.string(), z.string()),
  })
  .meta({ id: 'CampaignStarted' });

/**
 * One subject of a JSON campaign: an object. Its fields are checked row by row, as a manifest's
 * rows are (every problem listed as `subjects.<index>.<field>`; skipInvalid leaves such a row out),
 * so here they are described, not constrained.
 */
const campaignSubjectSchema = z.looseObject(
  {
    subjectId: z
      .unknown()
      .optional()
      .describe('Required: the person\u2019s id (letters, digits and . _ @ + -, at most 128)'),
    gender: z.unknown().optional().describe('Required: 1 (woman) or 2 (man)'),
    styles: z.unknown().optional().describe('Required: style ids, a list (or text "3;5;7")'),
    selfies: z
      .unknown()
      .optional()
      .describe(
        'Absolute paths under IMAGE_ROOTS, folders, or URLs on IMAGE_URL_HOSTS, a list (or text "a.jpg;b.jpg"); or a modelId instead',
      ),
    mainImage: z
      .unknown()
      .optional()
      .describe('With selfies: the main one, by position (1 = first) or file name'),
    modelId: z
      .unknown()
      .optional()
      .describe(
        'Instead of selfies: an existing DONE model of that gender at the provider; its styles are generated without training',
      ),
  },
  { error: 'must be a subject (a JSON object)' },
);

/** The JSON body of POST /v1/campaigns (the multipart form is read field by field). */
export const campaignJsonStartSchema = z.strictObject({
  subjects: z
    .array(campaignSubjectSchema)
    .min(1)
    .max(MAX_MANIFEST_ROWS)
    .describe(
      'One object per subject: subjectId, gender (1|2), styles (ids), and either selfies (absolute paths under IMAGE_ROOTS, folders, or URLs on IMAGE_URL_HOSTS) with an optional mainImage, or modelId (an existing DONE model of that gender at the provider: its styles are generated without training)',
    ),
  campaignId: campaignIdSchema.optional(),
  skipInvalid: z.boolean().optional(),
  options: campaignOptionsSchema.optional(),
});

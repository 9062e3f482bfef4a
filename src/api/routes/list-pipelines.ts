import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  listPipelinePage,
  MAX_LIST_LIMIT,
  PIPELINE_KINDS,
  PIPELINE_STATUS_FILTERS,
  SEARCHABLE_TEXT,
  type PipelineKind,
  type PipelineStatusFilter,
  type PipelineSummary,
} from '@avatar-pipeline/client/client/list-pipelines';
import { ApiError, errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { wantsEventStream } from '../event-stream';
import { LIVE_LIST_DESCRIPTION } from '../live-lists';
import { BEARER_SCHEME } from '../openapi';
import { stateOfStatus } from '../pipeline-view';
import { linksSchema, PIPELINE_STATES } from '../response-schemas';

/**
 * A filter goes into a visibility query between quotes (SEARCHABLE_TEXT); an empty value
 * (`campaignId=`, as a form sends an empty field) is no filter.
 */
const filterValue = (what: string) =>
  z
    .string()
    .max(300, 'must be at most 300 characters')
    .regex(SEARCHABLE_TEXT, `a ${what} with quotes, backslashes or control characters cannot be searched for`)
    .optional();

/** What nextCursor looks like: a tag of the listing's filters, a dot, Temporal's page token (base64url). */
const CURSOR_PATTERN = /^[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]+$/;

const listQuerySchema = z.object({
  subjectId: filterValue('subject id').describe('Only runs for this subject (empty: any)'),
  campaignId: filterValue('campaign id').describe('Only runs of this campaign (empty: any)'),
  status: z
    .enum(PIPELINE_STATUS_FILTERS as [PipelineStatusFilter, ...PipelineStatusFilter[]])
    .optional()
    .describe('Only runs in this state (awaiting-review: running, held at the review gate)'),
  kind: z
    .enum(PIPELINE_KINDS as [PipelineKind, ...PipelineKind[]])
    .optional()
    .describe('Only runs of this kind'),
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(MAX_LIST_LIMIT, `must be at most ${MAX_LIST_LIMIT}`)
    .default(20)
    .describe('Runs per page'),
  cursor: z
    .union([z.literal(''), z.string().max(4096).regex(CURSOR_PATTERN, 'is not a cursor of this listing')])
    .optional()
    .describe('nextCursor of the previous page, with the same filters (empty: the first page)'),
});

const pipelineListItemSchema = z.object({
  workflowId: z.string(),
  runId: z.string(),
  kind: z.enum(PIPELINE_KINDS as [PipelineKind, ...PipelineKind[]]),
  state: z.enum(PIPELINE_STATES),
  stage: z
    .string()
    .optional()
    .describe('The pipeline\u2019s own stage, as its PipelineStage search attribute holds it'),
  startedAt: z.string(),
  closedAt: z.string().optional(),
  subjectId: z.string().optional(),
  campaignId: z.string().optional(),
  modelId: z.number().optional(),
  links: linksSchema,
});

const pipelineListSchema = z
  .object({
    pipelines: z.array(pipelineListItemSchema).describe('Newest first'),
    nextCursor: z.string().optional().describe('Pass as `cursor` for the next page; absent on the last page'),
  })
  .meta({ id: 'PipelineList' });

/** What a page of the list is read for: the caller's tenant and the query's filters. */
type PipelineListQuery = Omit<z.infer<typeof listQuerySchema>, 'cursor'> & {
  tenant: string;
  cursor?: string;
};

export function registerListPipelinesRoute(app: FastifyInstance, ctx: ApiContext): void {
  const read = async (query: PipelineListQuery): Promise<z.infer<typeof pipelineListSchema>> => {
    const { tenant, subjectId, campaignId, status, kind, limit, cursor } = query;
    try {
      const page = await listPipelinePage(ctx.client, {
        tenant,
        limit,
        ...(subjectId ? { subjectId } : {}),
        ...(campaignId ? { campaignId } : {}),
        ...(status ? { status } : {}),
        ...(kind ? { kind } : {}),
        ...(cursor ? { cursor } : {}),
      });
      return {
        pipelines: page.pipelines.map((run) => listItem(run, ctx)),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    } catch (err) {
      // A cursor the schema let through has the right form, so it names a page this listing never had.
      throw ApiError.fromListingError(err);
    }
  };
  const stream = ctx.liveLists.define('pipelines', read);

  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/pipelines',
    schema: {
      summary: 'List pipeline runs, once or live',
      description: [
        'Newest first (open runs by start time, then ended runs by end time, as Temporal\u2019s visibility store orders them), narrowed by subject, campaign, state and kind, one page at a time.',
        LIVE_LIST_DESCRIPTION,
      ].join('\n\n'),
      tags: ['pipelines'],
      security: [{ [BEARER_SCHEME]: [] }],
      querystring: listQuerySchema,
      response: {
        200: pipelineListSchema.describe(
          'One page of runs (each `list` event of the stream: the first page)',
        ),
        401: errorBodySchema.describe('Missing or wrong bearer token'),
        404: errorBodySchema.describe(
          'No such page: the cursor is not one this listing handed out (another listing\u2019s, or made up)',
        ),
        422: errorBodySchema.describe('A filter, the limit or the cursor is invalid'),
      },
    },
    handler: async (request, reply) => {
      const query = { ...request.query, tenant: request.caller.tenant };
      // Read once either way: a bad filter or cursor is answered before any stream opens.
      const page = await read(query);
      if (!wantsEventStream(request)) return page;
      const { tenant, subjectId, campaignId, status, kind, limit } = query;
      await stream(request, reply, { tenant, subjectId, campaignId, status, kind, limit });
    },
  });
}

function listItem(run: PipelineSummary, ctx: ApiContext): z.infer<typeof pipelineListItemSchema> {
  return {
    workflowId: run.workflowId,
    runId: run.runId,
    kind: run.kind,
    // As the run's status says it: a run held at its review gate is awaiting-review.
    state:
      run.status === 'RUNNING' && run.stage === 'awaiting-review'
        ? 'awaiting-review'
        : stateOfStatus(run.status),
    ...(run.stage ? { stage: run.stage } : {}),
    startedAt: run.startTime.toISOString(),
    ...(run.closeTime ? { closedAt: run.closeTime.toISOString() } : {}),
    ...(run.subjectId ? { subjectId: run.subjectId } : {}),
    ...(run.campaignId ? { campaignId: run.campaignId } : {}),
    ...(run.modelId !== undefined ? { modelId: run.modelId } : {}),
    links: ctx.links(run.workflowId),
  };
}

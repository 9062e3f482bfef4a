import { createHash } from 'node:crypto';
import type { Client, WorkflowExecutionInfo, WorkflowExecutionStatusName } from '@temporalio/client';
// The listing pages itself (a cursor per page), which the client's list() iterator hides; this
// is the helper that iterator decodes each execution with (memo payloads included).
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import { z } from 'zod';
import { encryptionCodecOf } from '../codec/client-data-converter';
import {
  CampaignIdAttribute,
  ModelIdAttribute,
  PipelineStageAttribute,
  SubjectIdAttribute,
} from '../contracts/search-attributes';
import { WORKFLOW_TYPES } from '../contracts/workflow-definitions';
import { DEFAULT_TENANT, TENANT_ID_PATTERN } from '../contracts/workflow-ids';
import { tenantClause } from './tenant-runs';
import { InputError } from '../errors';

/**
 * Run states a listing can be narrowed to, as Temporal's visibility queries say them:
 * `awaiting-review` is a running run held at its review gate (its PipelineStage).
 */
const STATUS_CLAUSES = {
  running: "ExecutionStatus = 'Running'",
  'awaiting-review': `ExecutionStatus = 'Running' AND ${PipelineStageAttribute.name} = 'awaiting-review'`,
  completed: "ExecutionStatus = 'Completed'",
  failed: "ExecutionStatus = 'Failed'",
  cancelled: "ExecutionStatus = 'Canceled'",
  terminated: "ExecutionStatus = 'Terminated'",
  'timed-out': "ExecutionStatus = 'TimedOut'",
  'continued-as-new': "ExecutionStatus = 'ContinuedAsNew'",
} as const;
export type PipelineStatusFilter = keyof typeof STATUS_CLAUSES;
export const PIPELINE_STATUS_FILTERS = Object.keys(STATUS_CLAUSES) as PipelineStatusFilter[];

/** What a run does, by its workflow type. */
const KIND_WORKFLOW_TYPES = {
  /** Training and generation in one run. */
  pipeline: WORKFLOW_TYPES.pipeline,
  /** Training only. */
  training: WORKFLOW_TYPES.training,
  /** Generation under an existing model, retries included. */
  generation: WORKFLOW_TYPES.generation,
} as const;
export type PipelineKind = keyof typeof KIND_WORKFLOW_TYPES;
export const PIPELINE_KINDS = Object.keys(KIND_WORKFLOW_TYPES) as PipelineKind[];

export const MAX_LIST_LIMIT = 1000;

/**
 * Text a visibility query can hold between single quotes: quotes and backslashes could break out,
 * and the store refuses control characters (the server answers UNAVAILABLE, which the client retries).
 */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
export const SEARCHABLE_TEXT = /^[^'"\\\u0000-\u001f\u007f]*$/;

/** Filter values go into a visibility query between single quotes. */
const queryValue = (what: string) =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(300, 'must be at most 300 characters')
    .regex(
      SEARCHABLE_TEXT,
      `a ${what} with quotes, backslashes or control characters cannot be searched for`,
    );

/** What every paged listing takes: whose runs, a page size and where the previous page ended. */
export const pagedListFields = {
  /** Whose runs: a listing only ever shows one tenant's (the AvatarTenant search attribute). */
  tenant: z.string().regex(TENANT_ID_PATTERN, 'is not a tenant id ([a-z0-9-], at most 40)'),
  limit: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(MAX_LIST_LIMIT, `must be at most ${MAX_LIST_LIMIT}`)
    .default(20),
  /** Where the previous page ended (its nextCursor); the first page without one. */
  cursor: z.string().min(1, 'must not be empty').max(4096, 'is not a cursor of this listing').optional(),
};

const listOptionsSchema = z.strictObject({
  ...pagedListFields,
  tenant: pagedListFields.tenant.default(DEFAULT_TENANT),
  status: z.enum(PIPELINE_STATUS_FILTERS as [PipelineStatusFilter, ...PipelineStatusFilter[]]).optional(),
  subjectId: queryValue('subject id').optional(),
  campaignId: queryValue('campaign id').optional(),
  /** Only runs of these kinds; every kind by default. */
  kind: z.enum(PIPELINE_KINDS as [PipelineKind, ...PipelineKind[]]).optional(),
});
export type ListPipelinesOptions = z.input<typeof listOptionsSchema>;

/** One pipeline run as a listing shows it (from Temporal's visibility store, no worker needed). */
export interface PipelineSummary {
  workflowId: string;
  runId: string;
  kind: PipelineKind;
  status: WorkflowExecutionStatusName;
  /** The pipeline's own stage (PipelineStage search attribute), kept current as it runs. */
  stage?: string;
  taskQueue: string;
  startTime: Date;
  closeTime?: Date;
  subjectId?: string;
  campaignId?: string;
  modelId?: number;
}

export interface PipelinePage {
  pipelines: PipelineSummary[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

/**
 * One tenant's newest pipeline runs first (Temporal's visibility order: open runs by start time,
 * then closed ones by close time), narrowed by state, subject, campaign and kind. Filters are search
 * attributes in the visibility query, so every page is filled on the server: subject ids are
 * matched as SubjectId holds them (with payload encryption, their keyed hash under every key).
 */
export async function listPipelinePage(
  client: Client,
  options: ListPipelinesOptions = {},
): Promise<PipelinePage> {
  const parsed = listOptionsSchema.safeParse(options);
  if (!parsed.success) throw InputError.fromZod(parsed.error);
  const { limit, cursor } = parsed.data;
  const query = visibilityQuery(client, parsed.data);
  const pageToken = cursor === undefined ? Buffer.alloc(0) : decodeCursor(cursor, query);
  let response;
  try {
    response = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize: limit,
      nextPageToken: pageToken,
    });
  } catch (err) {
    // The server is the judge of its own page tokens: one it cannot read is a bad cursor.
    if (cursor !== undefined && isInvalidArgument(err)) throw badCursor();
    throw err;
  }
  const pipelines = await Promise.all(
    response.executions.map(async (raw) =>
      summarize(
        await executionInfoFromRaw(raw, client.options.loadedDataConverter, raw, client.options.namespace),
      ),
    ),
  );
  const next = response.nextPageToken;
  return {
    pipelines,
    ...(next && next.length > 0 ? { nextCursor: encodeCursor(Buffer.from(next), query) } : {}),
  };
}

/** The first `limit` runs of listPipelinePage, as a plain array. */
export async function listPipelines(
  client: Client,
  options: ListPipelinesOptions = {},
): Promise<PipelineSummary[]> {
  return (await listPipelinePage(client, options)).pipelines;
}

type ParsedListOptions = z.output<typeof listOptionsSchema>;

function visibilityQuery(client: Client, options: ParsedListOptions): string {
  const kinds = options.kind ? [options.kind] : PIPELINE_KINDS;
  const clauses = [
    tenantClause(options.tenant),
    `WorkflowType IN (${kinds.map((kind) => `'${KIND_WORKFLOW_TYPES[kind]}'`).join(', ')})`,
  ];
  if (options.status) clauses.push(STATUS_CLAUSES[options.status]);
  if (options.subjectId !== undefined) {
    const codec = encryptionCodecOf(client.options.loadedDataConverter);
    const keys = codec ? codec.subjectTokens(options.subjectId) : [options.subjectId];
    clauses.push(`${SubjectIdAttribute.name} IN (${keys.map((k) => `'${k}'`).join(', ')})`);
  }
  if (options.campaignId !== undefined) {
    clauses.push(`${CampaignIdAttribute.name} = '${options.campaignId}'`);
  }
  return clauses.join(' AND ');
}

/**
 * A cursor is Temporal's page token, tagged with the query it pages through: a cursor handed to a
 * listing with other filters is refused instead of paging through something else.
 */
export function encodeCursor(token: Buffer, query: string): string {
  return `${queryTag(query)}.${token.toString('base64url')}`;
}

export function decodeCursor(cursor: string, query: string): Buffer {
  const [tag, token, ...rest] = cursor.split('.');
  if (rest.length > 0 || !token || !/^[A-Za-z0-9_-]+$/.test(token)) throw badCursor();
  if (tag !== queryTag(query)) {
    throw new InputError([
      { path: 'cursor', message: 'belongs to a listing with other filters: repeat the same filters' },
    ]);
  }
  return Buffer.from(token, 'base64url');
}

function queryTag(query: string): string {
  return createHash('sha256').update(query).digest('base64url').slice(0, 12);
}

export function badCursor(): InputError {
  return new InputError([{ path: 'cursor', message: 'is not a cursor of this listing' }]);
}

export function isInvalidArgument(err: unknown): boolean {
  // gRPC status 3 (INVALID_ARGUMENT).
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 3;
}

function summarize(info: WorkflowExecutionInfo): PipelineSummary {
  const memo = info.memo ?? {};
  const attributes = info.typedSearchAttributes;
  const modelId = typeof memo.modelId === 'number' ? memo.modelId : attributes.get(ModelIdAttribute);
  const campaignId =
    typeof memo.campaignId === 'string' ? memo.campaignId : attributes.get(CampaignIdAttribute);
  const stage = attributes.get(PipelineStageAttribute);
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    kind: kindOf(info.type),
    status: info.status.name,
    ...(stage ? { stage } : {}),
    taskQueue: info.taskQueue,
    startTime: info.startTime,
    ...(info.closeTime ? { closeTime: info.closeTime } : {}),
    ...(typeof memo.subjectId === 'string' ? { subjectId: memo.subjectId } : {}),
    ...(campaignId ? { campaignId } : {}),
    ...(modelId !== undefined ? { modelId } : {}),
  };
}

function kindOf(workflowType: string): PipelineKind {
  const found = PIPELINE_KINDS.find((kind) => KIND_WORKFLOW_TYPES[kind] === workflowType);
  return found ?? 'pipeline';
}

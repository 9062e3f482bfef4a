import type { Client, WorkflowExecutionInfo, WorkflowExecutionStatusName } from '@temporalio/client';
import { z } from 'zod';
import { WORKFLOW_TYPES } from '../contracts/workflow-definitions';
import { PipelineInputError } from './input-error';

/** Run states a listing can be narrowed to, as Temporal's visibility queries spell them. */
const STATUS_QUERY_VALUES = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Canceled',
  terminated: 'Terminated',
  'timed-out': 'TimedOut',
  'continued-as-new': 'ContinuedAsNew',
} as const;
export type PipelineStatusFilter = keyof typeof STATUS_QUERY_VALUES;
export const PIPELINE_STATUS_FILTERS = Object.keys(STATUS_QUERY_VALUES) as PipelineStatusFilter[];

export const MAX_LIST_LIMIT = 1000;

const listOptionsSchema = z.strictObject({
  status: z.enum(PIPELINE_STATUS_FILTERS as [PipelineStatusFilter, ...PipelineStatusFilter[]]).optional(),
  subjectId: z.string().min(1, 'must not be empty').optional(),
  limit: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(MAX_LIST_LIMIT, `must be at most ${MAX_LIST_LIMIT}`)
    .default(20),
});
export type ListPipelinesOptions = z.input<typeof listOptionsSchema>;

/** One pipeline run as a listing shows it (from Temporal's visibility store, no worker needed). */
export interface PipelineSummary {
  workflowId: string;
  runId: string;
  status: WorkflowExecutionStatusName;
  taskQueue: string;
  startTime: Date;
  closeTime?: Date;
  subjectId?: string;
  campaignId?: string;
  modelId?: number;
}

/**
 * The newest pipeline runs first, optionally only those in one state or for one subject.
 * The subject is matched on the run's memo (set by startPipeline), so no custom search
 * attribute is needed; runs are read newest first until `limit` match.
 */
export async function listPipelines(
  client: Client,
  options: ListPipelinesOptions = {},
): Promise<PipelineSummary[]> {
  const parsed = listOptionsSchema.safeParse(options);
  if (!parsed.success) throw PipelineInputError.fromZod(parsed.error);
  const { status, subjectId, limit } = parsed.data;
  const clauses = [`WorkflowType = '${WORKFLOW_TYPES.pipeline}'`];
  if (status) clauses.push(`ExecutionStatus = '${STATUS_QUERY_VALUES[status]}'`);
  const found: PipelineSummary[] = [];
  // Without a subject filter every listed run matches, so the server needs to send only `limit`.
  const pageSize = subjectId === undefined ? limit : Math.max(limit, 100);
  for await (const info of client.workflow.list({ query: clauses.join(' AND '), pageSize })) {
    const summary = summarize(info);
    if (subjectId !== undefined && summary.subjectId !== subjectId) continue;
    found.push(summary);
    if (found.length >= limit) break;
  }
  return found;
}

function summarize(info: WorkflowExecutionInfo): PipelineSummary {
  const memo = info.memo ?? {};
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    status: info.status.name,
    taskQueue: info.taskQueue,
    startTime: info.startTime,
    ...(info.closeTime ? { closeTime: info.closeTime } : {}),
    ...(typeof memo.subjectId === 'string' ? { subjectId: memo.subjectId } : {}),
    ...(typeof memo.campaignId === 'string' ? { campaignId: memo.campaignId } : {}),
    ...(typeof memo.modelId === 'number' ? { modelId: memo.modelId } : {}),
  };
}

import type { Client, WorkflowExecutionInfo, WorkflowExecutionStatusName } from '@temporalio/client';
// The listing pages itself (a cursor per page), as listPipelinePage does.
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import { z } from 'zod';
import {
  badCursor,
  decodeCursor,
  encodeCursor,
  isInvalidArgument,
  pagedListFields,
} from '../client/list-pipelines';
import { tenantClause } from '../client/tenant-runs';
import { WORKFLOW_TYPES } from '../contracts/workflow-definitions';
import { InputError } from '../errors';

const listOptionsSchema = z.strictObject(pagedListFields);
export type ListCampaignsOptions = z.input<typeof listOptionsSchema>;

/** One campaign as a listing shows it (from Temporal's visibility store, no worker needed). */
export interface CampaignListing {
  campaignId: string;
  status: WorkflowExecutionStatusName;
  /** Subjects started (the start memo); absent for a campaign whose memo does not say. */
  total?: number;
  startTime: Date;
  closeTime?: Date;
}

export interface CampaignListingPage {
  campaigns: CampaignListing[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

/**
 * One tenant's campaigns, newest first (Temporal's visibility order: open ones by start time, then
 * ended ones by end time). A campaign that continued as new is listed by its current run only; one
 * restarted after it ended (a retry) has a run per start, and a page lists its id once.
 */
export async function listCampaignPage(
  client: Client,
  options: ListCampaignsOptions,
): Promise<CampaignListingPage> {
  const parsed = listOptionsSchema.safeParse(options);
  if (!parsed.success) throw InputError.fromZod(parsed.error);
  const { tenant, limit, cursor } = parsed.data;
  const query = [
    tenantClause(tenant),
    `WorkflowType = '${WORKFLOW_TYPES.campaign}'`,
    `ExecutionStatus != 'ContinuedAsNew'`,
  ].join(' AND ');
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
    if (cursor !== undefined && isInvalidArgument(err)) throw badCursor();
    throw err;
  }
  const infos = await Promise.all(
    response.executions.map((raw) =>
      executionInfoFromRaw(raw, client.options.loadedDataConverter, raw, client.options.namespace),
    ),
  );
  const seen = new Set<string>();
  const campaigns = infos
    .filter((info) => !seen.has(info.workflowId) && seen.add(info.workflowId))
    .map(summarize);
  const next = response.nextPageToken;
  return {
    campaigns,
    ...(next && next.length > 0 ? { nextCursor: encodeCursor(Buffer.from(next), query) } : {}),
  };
}

function summarize(info: WorkflowExecutionInfo): CampaignListing {
  const total = info.memo?.['total'];
  return {
    campaignId: info.workflowId,
    status: info.status.name,
    ...(typeof total === 'number' ? { total } : {}),
    startTime: info.startTime,
    ...(info.closeTime ? { closeTime: info.closeTime } : {}),
  };
}

import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { z } from 'zod';
import { getCampaign, type CampaignHandle } from '@avatar-pipeline/client/campaign/campaigns';
import { runOfTenant } from '@avatar-pipeline/client/client/tenant-runs';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { ApiError } from '../../api/api-error';
import type { ApiContext } from '../../api/api-context';

/**
 * The path of every campaign route. Any text is looked up (campaigns started before the id rules
 * tightened keep their ids), and every id that is not a campaign gets the one unknown-campaign
 * answer, whatever holds it.
 */
export const campaignIdParams = z.object({
  id: z.string().min(1).max(300).describe('The campaignId answered by POST /v1/campaigns'),
});

/** The answer to an id that names no campaign (of the caller's). */
export const unknownCampaign = (id: string): ApiError => new ApiError(404, `No campaign ${id}`, []);

/**
 * The campaign's Temporal status. An id Temporal does not know, one held by another kind of
 * workflow (a pipeline, a claim) and another tenant's campaign get the same 404, so the answer
 * tells nothing about internal ids or other tenants' campaigns.
 */
export async function known(client: Client, tenant: string, id: string): Promise<string> {
  return (await knownCampaign(client, tenant, id)).status.name;
}

/** The campaign's description, with the same 404 as `known`. */
export async function knownCampaign(
  client: Client,
  tenant: string,
  id: string,
): Promise<WorkflowExecutionDescription> {
  const description = await runOfTenant(client, tenant, id);
  if (description?.type !== WORKFLOW_TYPES.campaign) throw unknownCampaign(id);
  return description;
}

/** The campaign's handle (its queries, updates and stored results); ask `known` first. */
export function campaignHandle(ctx: ApiContext, id: string): CampaignHandle {
  return getCampaign(ctx.client, id, { store: ctx.store });
}

/** Where the campaign's routes are, as its answers link them. */
export function campaignLinks(id: string) {
  const self = `/v1/campaigns/${encodeURIComponent(id)}`;
  return {
    self,
    summary: `${self}/summary`,
    resultsCsv: `${self}/results.csv`,
    resultsJsonl: `${self}/results.jsonl`,
    events: `${self}/events`,
  };
}

import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { eraseFromCampaignManifests } from './manifest-store';
import { subjectWorkflowId } from '../contracts/campaign/campaign-state';
import { tenantOfWorkflowId } from '../contracts/workflow-ids';
import { subjectsErasedSignal } from '../contracts/campaign/definitions';
import type { BlobStore } from '../storage/blob-store';

/** What erasing a person from the campaigns did. */
export interface CampaignErasure {
  /** Manifest lines erased, over every stored manifest. */
  lines: number;
  /** Open campaigns told (by signal) to drop the person. */
  campaignsTold: number;
  /**
   * The ids the campaigns give the person's pipelines (subjectWorkflowId): one may have started
   * too recently to be listed by the SubjectId search yet.
   */
  pipelineIds: string[];
}

/**
 * Erases a person from the tenant's campaigns (ids `<tenant>.…`): their lines in the manifests
 * stored in `store` (the blob store starters and workers share) first, so a campaign that reads its page afterwards skips them; then each
 * campaign whose manifest held them is told the erased lines by index, since a running one may
 * hold their page in memory already: it never starts them, cancels their pipeline if it runs,
 * and leaves them out of its progress. A campaign that has closed cannot be told, and needs not.
 */
export async function eraseFromCampaigns(
  client: Client,
  store: BlobStore,
  tenant: string,
  subjectId: string,
): Promise<CampaignErasure> {
  const erasures = await eraseFromCampaignManifests(
    store,
    subjectId,
    (campaignId) => tenantOfWorkflowId(campaignId) === tenant,
  );
  let campaignsTold = 0;
  const pipelineIds: string[] = [];
  for (const { campaignId, indexes, workflowKeys } of erasures) {
    const told = await client.workflow
      .getHandle(campaignId)
      .signal(subjectsErasedSignal, { indexes })
      .then(
        () => true,
        (err: unknown) => {
          if (err instanceof WorkflowNotFoundError) return false;
          throw err;
        },
      );
    if (told) campaignsTold++;
    for (const key of workflowKeys) pipelineIds.push(subjectWorkflowId(campaignId, { subjectId: key }));
  }
  const lines = erasures.reduce((n, e) => n + e.indexes.length, 0);
  return { lines, campaignsTold, pipelineIds };
}

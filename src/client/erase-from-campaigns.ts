import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { campaignManifestPath, eraseFromCampaignManifests } from '../campaign/manifest-store';
import { subjectWorkflowId } from '../contracts/campaign-state';
import { subjectsErasedSignal, WORKFLOW_TYPES } from '../contracts/workflow-definitions';

/** What erasing a person from the campaigns did. */
export interface CampaignErasure {
  /** Manifest lines erased, over every stored manifest. */
  lines: number;
  /** Open campaigns told (by signal) to drop the person. */
  campaignsTold: number;
  /**
   * The ids the open campaigns give the person's pipelines (subjectWorkflowId): one may have
   * started too recently to be listed by the SubjectId search yet.
   */
  pipelineIds: string[];
}

/**
 * Erases a person from the campaigns: their lines in the stored manifests under `manifestDir`
 * (CAMPAIGN_DIR) first, so a campaign that reads its page afterwards skips them; then every open
 * campaign whose manifest held them is told the erased lines by index, since it may hold their
 * page in memory already: it never starts them, cancels their pipeline if it runs, and leaves
 * them out of its progress.
 */
export async function eraseFromCampaigns(
  client: Client,
  manifestDir: string,
  subjectId: string,
): Promise<CampaignErasure> {
  const erasures = await eraseFromCampaignManifests(manifestDir, subjectId);
  const lines = erasures.reduce((n, e) => n + e.indexes.length, 0);
  if (erasures.length === 0) return { lines, campaignsTold: 0, pipelineIds: [] };
  const byPath = new Map(erasures.map((e) => [e.path, e]));
  let campaignsTold = 0;
  const pipelineIds: string[] = [];
  const open = client.workflow.list({
    query: `WorkflowType = '${WORKFLOW_TYPES.campaign}' AND ExecutionStatus = 'Running'`,
  });
  for await (const campaign of open) {
    const erasure = byPath.get(campaignManifestPath(manifestDir, campaign.workflowId));
    if (!erasure) continue;
    const told = await client.workflow
      .getHandle(campaign.workflowId)
      .signal(subjectsErasedSignal, { indexes: erasure.indexes })
      .then(
        () => true,
        (err: unknown) => {
          // It closed meanwhile: nothing more will start, and its progress is shown filtered.
          if (err instanceof WorkflowNotFoundError) return false;
          throw err;
        },
      );
    if (told) campaignsTold++;
    for (const key of erasure.workflowKeys)
      pipelineIds.push(subjectWorkflowId(campaign.workflowId, { subjectId: key }));
  }
  return { lines, campaignsTold, pipelineIds };
}

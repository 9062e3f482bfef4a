import type { Client } from '@temporalio/client';
import type { CampaignHandle } from '@avatar-pipeline/client/campaign/campaigns';
import { submitCampaignReviews } from '@avatar-pipeline/client/client/campaign-reviews';
import { listPipelines } from '@avatar-pipeline/client/client/list-pipelines';
import { MAX_REVIEWS_PER_BATCH } from '@avatar-pipeline/client/contracts/review';
import { InputError } from '@avatar-pipeline/client/errors';
import { EXIT } from '../exit-codes';
import { printableJson, writeLines } from '../printable';

export interface CampaignReviewsFlags {
  approveAll?: boolean;
  rejectAll?: boolean;
  limit: string;
  json?: boolean;
  /** Whose campaign (--tenant): its runs are listed among the tenant's. */
  tenant: string;
}

/**
 * `campaigns reviews <campaignId>`: the campaign's runs held at their review gate (the visibility
 * store's listing, no worker asked), and with --approve-all or --reject-all one decision for every
 * style each of them has under review, sent in batches (submitCampaignReviews).
 */
export async function campaignReviews(
  client: Client,
  campaign: CampaignHandle,
  flags: CampaignReviewsFlags,
): Promise<number> {
  if (flags.approveAll && flags.rejectAll)
    throw InputError.field('--approve-all', 'cannot go with --reject-all: choose one');
  const limit = Number(flags.limit);
  if (!/^\d+$/.test(flags.limit.trim()) || limit < 1 || limit > 1000)
    throw InputError.field('--limit', `"${flags.limit}" must be a whole number from 1 to 1000`);
  const { campaignId } = campaign;
  const waiting = await listPipelines(client, {
    tenant: flags.tenant,
    campaignId,
    status: 'awaiting-review',
    limit,
  });
  const decision = flags.approveAll ? 'approve' : flags.rejectAll ? 'reject' : undefined;
  if (decision === undefined) {
    if (flags.json) {
      process.stdout.write(
        printableJson(waiting.map(({ workflowId, subjectId }) => ({ workflowId, subjectId }))),
      );
      return EXIT.ok;
    }
    writeLines(process.stdout, `${campaignId}: ${waiting.length} run(s) awaiting review`);
    for (const run of waiting)
      writeLines(process.stdout, `  ${run.subjectId ?? '(erased)'}  ${run.workflowId}`);
    return EXIT.ok;
  }
  const results = [];
  for (let from = 0; from < waiting.length; from += MAX_REVIEWS_PER_BATCH) {
    const reviews = waiting
      .slice(from, from + MAX_REVIEWS_PER_BATCH)
      .map(({ workflowId }) => ({ workflowId, decision }));
    results.push(
      ...(await submitCampaignReviews(client, campaignId, { reviews }, { reviewer: { via: 'cli' } })),
    );
  }
  const refused = results.filter((r) => r.effect === 'refused');
  const decided = results.filter((r) => r.effect === 'decided').length;
  if (flags.json) process.stdout.write(printableJson(results));
  else
    writeLines(
      process.stdout,
      `${campaignId}: ${decided} run(s) ${decision === 'approve' ? 'approved' : 'rejected'}`,
    );
  for (const run of refused)
    writeLines(process.stderr, `  ${run.workflowId}: ${(run.issues ?? []).map((i) => i.message).join('; ')}`);
  return refused.length > 0 ? EXIT.badInput : EXIT.ok;
}

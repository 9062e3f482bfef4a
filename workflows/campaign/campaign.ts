import { isCancellation, makeContinueAsNewFunc } from '@temporalio/workflow';
import type { CampaignInput, FinalLedger } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import { CampaignRun } from './campaign-run';

/**
 * A batch campaign: one child avatar pipeline per subject of the manifest, at most the window's
 * size at once (a sliding window: each end starts the next). The window is sized from the
 * provider's signals (auto, capped at maxInFlight) or fixed (window.ts).
 *
 * Children outlive the run that started them: each pipeline reports its end by a signal to the
 * campaign's id, so to whichever run is current. A run starts at most `subjectsPerRun` subjects
 * (or stops early when history grows long or a new worker version is current), then continues
 * as new at once with the compact ledger and the list of subjects still running; the window
 * never drains at a run boundary. A child that closes without reporting (terminated, timed out)
 * is found by unheard.ts. A subject's failure is recorded with its message and touches no
 * other subject. Pause, resume, cancel and retry are updates. Every change of progress is kept in
 * the run's memo (read by describe, without a worker) and numbered in the progress feed
 * (workflows/progress-log.ts) that the API's event stream queries, counted on across runs.
 */
export async function avatarCampaign(input: CampaignInput): Promise<FinalLedger> {
  const campaign = new CampaignRun(input);
  campaign.listen();
  campaign.runInBackground();
  try {
    await campaign.learnTenantShare();
    for (;;) {
      const turn = await campaign.nextTurn();
      if (turn === 'finished') break;
      if (turn === 'continue-as-new') return await continueOnCurrentVersion(await campaign.handOver());
      await campaign.startNext();
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    await campaign.windDownCancelled();
  }
  return await campaign.finish();
}

/**
 * Runs are pinned to the worker version they started on; the next run starts on the version
 * current then, so a campaign moves to a new version at its continue-as-new boundary (its running
 * children stay on theirs).
 */
function continueOnCurrentVersion(next: CampaignInput): Promise<never> {
  return makeContinueAsNewFunc<typeof avatarCampaign>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(next);
}

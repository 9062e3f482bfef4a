import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  isCancellation,
  log,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { CampaignActivities } from '../activities';
import type { SubjectOutcome } from '../contracts/campaign-state';

export { outcomeOfResult } from '../contracts/campaign-state';

const { reportSubjectEnd } = proxyActivities<CampaignActivities>({
  startToCloseTimeout: '1 minute',
  // A campaign stalled or down for longer learns of the end from its check of unheard pipelines.
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * A campaign's pipeline tells the campaign how it ended, by an update to the campaign's workflow id
 * (so to its current run: the run that started the pipeline may have continued as new since), sent
 * by an activity. Sent even when the pipeline is being cancelled. A campaign that is gone is not an
 * error here.
 */
export async function reportToCampaign(
  campaignId: string | undefined,
  outcome: SubjectOutcome,
): Promise<void> {
  if (!campaignId) return;
  const { workflowId, firstExecutionRunId: runId } = workflowInfo();
  await CancellationScope.nonCancellable(() =>
    reportSubjectEnd.executeWithOptions({ summary: `report ${outcome.status} to campaign ${campaignId}` }, [
      { campaignId, ended: { workflowId, runId, outcome } },
    ]),
  ).catch((err: unknown) =>
    log.warn('could not report the end to the campaign', {
      campaignId,
      error: err instanceof Error ? err.message : String(err),
    }),
  );
}

/** The subject's failure as the campaign reports it: the pipeline's own message (which quotes the provider). */
export function failureOutcome(err: unknown): SubjectOutcome {
  if (isCancellation(err)) return { status: 'CANCELLED' };
  const cause =
    (err instanceof ChildWorkflowFailure || err instanceof ActivityFailure) && err.cause ? err.cause : err;
  if (isCancellation(cause)) return { status: 'CANCELLED' };
  const details = cause instanceof ApplicationFailure ? cause.details?.[0] : undefined;
  const modelId =
    typeof details === 'object' &&
    details !== null &&
    'modelId' in details &&
    typeof details.modelId === 'number'
      ? details.modelId
      : undefined;
  return {
    status: 'FAILED',
    error: cause instanceof Error ? cause.message : String(cause),
    ...(modelId !== undefined ? { modelId } : {}),
  };
}

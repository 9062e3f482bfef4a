import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { SubjectOutcome } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import {
  subjectAwaitingReviewSignal,
  subjectEndedSignal,
} from '@avatar-pipeline/client/contracts/campaign/definitions';

export { outcomeOfResult } from '@avatar-pipeline/client/contracts/campaign/campaign-state';

/**
 * A campaign's pipeline tells the campaign how it ended, by a signal to the campaign's workflow
 * id (so to its current run: the run that started the pipeline may have continued as new since).
 * Sent even when the pipeline is being cancelled. A campaign that is gone is not an error here.
 */
export async function reportToCampaign(
  campaignId: string | undefined,
  outcome: SubjectOutcome,
): Promise<void> {
  if (!campaignId) return;
  const { workflowId } = workflowInfo();
  await CancellationScope.nonCancellable(() =>
    getExternalWorkflowHandle(campaignId).signal(subjectEndedSignal, { workflowId, outcome }),
  ).catch((err: unknown) =>
    log.warn('could not report the end to the campaign', {
      campaignId,
      error: err instanceof Error ? err.message : String(err),
    }),
  );
}

/**
 * A campaign's pipeline tells the campaign that its review gate is open: it now waits for a person,
 * and its place in the window is free for another subject. Lost, it costs only that place.
 */
export async function reportAwaitingReview(campaignId: string | undefined): Promise<void> {
  if (!campaignId) return;
  const { workflowId } = workflowInfo();
  await getExternalWorkflowHandle(campaignId)
    .signal(subjectAwaitingReviewSignal, { workflowId })
    .catch((err: unknown) =>
      log.warn('could not tell the campaign that the review gate is open', {
        campaignId,
        error: err instanceof Error ? err.message : String(err),
      }),
    );
}

/** The subject's failure as the campaign reports it: the pipeline's own message (which quotes the provider). */
export function failureOutcome(err: unknown): SubjectOutcome {
  if (isCancellation(err)) return { status: 'CANCELLED' };
  if (err instanceof WorkflowExecutionAlreadyStartedError) {
    return {
      status: 'FAILED',
      error: `a pipeline ${err.workflowId} for this subject already exists and did not fail; it is not started twice`,
    };
  }
  const cause = err instanceof ChildWorkflowFailure && err.cause ? err.cause : err;
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

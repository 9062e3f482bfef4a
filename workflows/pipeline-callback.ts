import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  ParentClosePolicy,
  proxyActivities,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { CallbackActivities } from '../activities/callback-activities';
import type { PipelineWorkflowInput } from '../src/contracts/pipeline-input';
import type { CallbackDelivery, PipelineEvent } from '../src/contracts/pipeline-event';
import type { PipelineResult } from '../src/contracts/pipeline-state';

/**
 * Receivers may be down for a while: retry with backoff up to 15 minutes apart, for three days.
 * Only a callback that can never be sent (no signing secret on the worker, a refused address) stops early.
 */
const delivery = proxyActivities<CallbackActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '3 days',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '15 minutes',
    nonRetryableErrorTypes: ['CallbackNotConfigured', 'CallbackRefused'],
  },
});

/** Delivers one pipeline's end event; its own workflow, so the pipeline closes without waiting for the receiver. */
export async function pipelineCallback(
  input: CallbackDelivery,
): Promise<{ status: number; attempt: number }> {
  return delivery.notifyCallback.executeWithOptions(
    { summary: `POST ${input.event.type} to ${hostOf(input.url)}` },
    [input],
  );
}

/**
 * When the request named a callback URL, starts its delivery as an abandoned child: the pipeline's
 * outcome and closing never depend on the receiver. Runs even when the pipeline is being cancelled.
 * Pipelines without a callback URL issue no command here, so their histories are unchanged.
 */
export async function announceEnd(input: PipelineWorkflowInput, event: PipelineEvent): Promise<void> {
  if (!input.callbackUrl) return;
  const url = input.callbackUrl;
  try {
    await CancellationScope.nonCancellable(() =>
      startChild(pipelineCallback, {
        workflowId: `${workflowInfo().workflowId}/callback`,
        args: [{ url, event }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        staticSummary: `${event.type} → ${hostOf(url)}`,
      }),
    );
  } catch (err) {
    log.warn('Could not start the callback delivery', { error: messageOf(err) });
  }
}

export function completedEvent(input: PipelineWorkflowInput, result: PipelineResult): PipelineEvent {
  return { ...eventBase(input, 'completed'), type: 'pipeline.completed', result };
}

/** The failed or cancelled event for what the pipeline threw. */
export function endedEvent(input: PipelineWorkflowInput, err: unknown): PipelineEvent {
  if (isCancellation(err)) return { ...eventBase(input, 'cancelled'), type: 'pipeline.cancelled' };
  const root = rootCause(err);
  return {
    ...eventBase(input, 'failed'),
    type: 'pipeline.failed',
    error: {
      message: messageOf(root),
      ...(root instanceof ApplicationFailure && root.type ? { type: root.type } : {}),
    },
  };
}

function eventBase(input: PipelineWorkflowInput, outcome: string) {
  const { workflowId } = workflowInfo();
  return {
    eventId: `${workflowId}:${outcome}`,
    workflowId,
    ...(input.subjectId ? { subjectId: input.subjectId } : {}),
    occurredAt: new Date().toISOString(),
  };
}

/** Activity and child failures wrap the failure that explains them; report that one. */
function rootCause(err: unknown): unknown {
  let current = err;
  for (let depth = 0; depth < 10 && current instanceof Error && current.cause instanceof Error; depth++) {
    current = current.cause;
  }
  return current;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

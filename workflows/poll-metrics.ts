import { metricMeter, workflowInfo } from '@temporalio/workflow';
import { WORKFLOW_TYPES } from './definitions';

export const ORDER_POLLS_METRIC = 'avatar_pipeline_order_polls';

/**
 * How many status polls a provider order took until it ended (done, error or deadline), as a
 * histogram tagged with the kind of order. The workflow meter emits nothing during replay.
 */
export function recordOrderPolls(polls: number, outcome: 'done' | 'error' | 'deadline'): void {
  const kind = workflowInfo().workflowType === WORKFLOW_TYPES.style ? 'generation' : 'training';
  metricMeter
    .createHistogram(ORDER_POLLS_METRIC, 'int', '', 'Status polls per provider order until it ended')
    .record(polls, { kind, outcome });
}

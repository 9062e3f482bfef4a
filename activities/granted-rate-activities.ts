import { Context } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import { setProviderQueueRateLimit } from '../src/operations/provider-queue-rate';

export const GRANTED_RATE_METRICS = {
  granted: 'avatar_pipeline_provider_granted_rps',
  ceiling: 'avatar_pipeline_provider_ceiling_rps',
} as const;

/**
 * The activity of the provider rate controller (workflows/granted-rate.ts): it sets the provider
 * task queue's rate limit through Temporal's task queue configuration (UpdateTaskQueueConfig), which
 * the server applies to every worker polling the queue, over any limit a worker sets itself.
 */
export function createGrantedRateActivities(meter: MetricMeter) {
  const granted = meter.createGauge(
    GRANTED_RATE_METRICS.granted,
    'float',
    '1/s',
    'The provider task queue rate limit the controller set: what the provider grants, as learned from its answers',
  );
  const ceiling = meter.createGauge(
    GRANTED_RATE_METRICS.ceiling,
    'float',
    '1/s',
    'PROVIDER_MAX_RPS: the ceiling of the provider task queue rate limit',
  );
  return {
    async setProviderQueueRate(input: {
      providerTaskQueue: string;
      rate: number;
      ceiling: number;
      reason: string;
    }): Promise<void> {
      const { client } = Context.current();
      await setProviderQueueRateLimit(
        client.workflowService,
        {
          namespace: client.options.namespace,
          identity: client.options.identity ?? 'avatar-pipeline provider rate controller',
          providerTaskQueue: input.providerTaskQueue,
        },
        input.rate,
        input.reason,
      );
      const tags = { task_queue: input.providerTaskQueue };
      granted.set(input.rate, tags);
      ceiling.set(input.ceiling, tags);
    },
  };
}

export type GrantedRateActivities = ReturnType<typeof createGrantedRateActivities>;

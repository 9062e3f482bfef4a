import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { OrderDurationActivities } from '../activities/order-duration-activities';
import type { ProviderActivities } from '../activities/provider-activities';
import { NON_RETRYABLE_FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';
import {
  UPLOAD_HEARTBEAT_TIMEOUT_MS,
  UPLOAD_START_TO_CLOSE_MS,
  WRITE_SCHEDULE_TO_CLOSE_MS,
  WRITE_START_TO_CLOSE_MS,
} from '@avatar-pipeline/client/contracts/activity-timeouts';

/**
 * Activity options that send a provider call to the provider task queue, where the provider
 * worker's task-queue-wide rate limit (PROVIDER_MAX_RPS) holds every pipeline and campaign.
 */
export interface ProviderRoute {
  taskQueue: string;
}

/** Writes reconcile before repeating, so retrying them is safe; keep trying through outages. */
export const writes = proxyActivities<ProviderActivities>({
  startToCloseTimeout: WRITE_START_TO_CLOSE_MS,
  scheduleToCloseTimeout: WRITE_SCHEDULE_TO_CLOSE_MS,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURE_TYPES],
  },
});

/**
 * Uploads read the selfie and send up to 10 MiB: a longer timeout per attempt. They heartbeat, so
 * an attempt whose worker died is retried (and reconciled) after the heartbeat timeout.
 */
export const uploads = proxyActivities<ProviderActivities>({
  startToCloseTimeout: UPLOAD_START_TO_CLOSE_MS,
  heartbeatTimeout: UPLOAD_HEARTBEAT_TIMEOUT_MS,
  scheduleToCloseTimeout: '1 hour',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURE_TYPES],
  },
});

/** Status reads are cheap and frequent; retry quickly, and the poll loop bounds the total by its deadline. */
export const reads = proxyActivities<ProviderActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '15 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURE_TYPES],
  },
});

/**
 * The learned durations of provider orders: a listing or a small write in the workers' blob store,
 * so local activities on the pipeline worker (one history event each, no task queue round trip).
 * Their answers only time status reads: a failure is treated as nothing learned, not retried long.
 */
export const durations = proxyLocalActivities<OrderDurationActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 2 },
});

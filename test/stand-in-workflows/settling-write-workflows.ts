import { proxyActivities } from '@temporalio/workflow';
import type { ProviderActivities } from '../../activities/provider-activities';

/** The timeouts of one write activity, in ms: the product's (workflows/activity-proxies.ts) or scaled down. */
export interface WriteTimeouts {
  startToCloseMs: number;
  heartbeatMs?: number;
}

/** One generation order created by an activity with retries: the smallest workflow whose retries a slow create decides. */
export async function createOrderWorkflow(
  timeouts: WriteTimeouts,
  input: { modelId: number; styleId: number; gender: 1 | 2 },
): Promise<{ orderId: number; reconciled: boolean }> {
  const { createGenerationOrder } = proxyActivities<Pick<ProviderActivities, 'createGenerationOrder'>>({
    startToCloseTimeout: timeouts.startToCloseMs,
    retry: { initialInterval: '1 second', maximumAttempts: 6 },
  });
  return createGenerationOrder(input);
}

/** One selfie upload as an activity with retries and a heartbeat timeout. */
export async function uploadSelfieWorkflow(
  timeouts: WriteTimeouts,
  input: { modelId: number; image: string },
): Promise<{ imageId: number; reconciled: boolean }> {
  const { uploadSelfie } = proxyActivities<Pick<ProviderActivities, 'uploadSelfie'>>({
    startToCloseTimeout: timeouts.startToCloseMs,
    ...(timeouts.heartbeatMs !== undefined ? { heartbeatTimeout: timeouts.heartbeatMs } : {}),
    retry: { initialInterval: '1 second', maximumAttempts: 6 },
  });
  return uploadSelfie({ ...input, gender: 1, index: 0, knownImageIds: [] });
}

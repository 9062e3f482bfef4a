import { UPLOAD_HEARTBEAT_TIMEOUT_MS } from '@avatar-pipeline/client/contracts/activity-timeouts';
import { PROVIDER_WORKER_HEARTBEATS } from '../../../src/worker/provider-heartbeats';

/**
 * The SDK sends an activity's heartbeats to the server at most once per throttle interval: the
 * smaller of 80% of the heartbeat timeout and the worker's maxHeartbeatThrottleInterval (60 s
 * unless set). At 80% of a 10 s timeout a heartbeat has 2 s to reach the server on a busy host
 * before a slow but live upload is timed out and retried with its body still in flight.
 */
describe('upload heartbeats on the provider worker', () => {
  const throttleMs = Math.min(
    UPLOAD_HEARTBEAT_TIMEOUT_MS * 0.8,
    PROVIDER_WORKER_HEARTBEATS.maxHeartbeatThrottleInterval,
  );

  it('reach the server at least four times per heartbeat timeout', () => {
    expect(throttleMs * 4).toBeLessThanOrEqual(UPLOAD_HEARTBEAT_TIMEOUT_MS);
  });

  it('are throttled no more loosely for activities without a heartbeat timeout of their own', () => {
    expect(PROVIDER_WORKER_HEARTBEATS.defaultHeartbeatThrottleInterval).toBeLessThanOrEqual(throttleMs);
  });
});

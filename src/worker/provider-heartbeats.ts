import { UPLOAD_HEARTBEAT_THROTTLE_MS } from '@avatar-pipeline/client/contracts/activity-timeouts';

/**
 * The provider worker's heartbeat throttle: a heartbeating upload reaches the server every
 * UPLOAD_HEARTBEAT_THROTTLE_MS while its body streams, well inside the upload's heartbeat timeout,
 * so a slow but live upload is never taken for a dead one and retried with its body in flight.
 */
export const PROVIDER_WORKER_HEARTBEATS = {
  maxHeartbeatThrottleInterval: UPLOAD_HEARTBEAT_THROTTLE_MS,
  defaultHeartbeatThrottleInterval: UPLOAD_HEARTBEAT_THROTTLE_MS,
} as const;

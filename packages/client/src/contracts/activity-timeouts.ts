/**
 * The timeouts of the provider activities, in ms: the workflows' activity options
 * (workflows/activity-proxies.ts) and the worker's checks of its settings against them
 * (packages/client/src/config/activity-timeout-rules.ts) read the same numbers.
 */
export const WRITE_START_TO_CLOSE_MS = 60_000;
export const WRITE_SCHEDULE_TO_CLOSE_MS = 30 * 60_000;
export const UPLOAD_START_TO_CLOSE_MS = 180_000;
export const UPLOAD_HEARTBEAT_TIMEOUT_MS = 10_000;

/**
 * How often a heartbeating upload reaches the server, at the most: the provider worker's heartbeat
 * throttle. Temporal's own default (80% of the heartbeat timeout) leaves 2 s for a heartbeat's trip
 * on a busy host before the server retries a live upload whose body is still being sent.
 */
export const UPLOAD_HEARTBEAT_THROTTLE_MS = 2_000;

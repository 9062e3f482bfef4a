import { Context } from '@temporalio/activity';

/** Comfortably inside the heartbeat timeout of the activities that use this (workflows/activity-proxies.ts). */
const HEARTBEAT_EVERY_MS = 2_000;

/**
 * Heartbeats while `body` runs, so that when the worker dies (killed, out of memory, host lost) the
 * server retries the attempt after the short heartbeat timeout instead of waiting out the long
 * start-to-close timeout that a slow upload needs. The retry reconciles before writing again.
 */
export async function withHeartbeats<T>(body: () => Promise<T>): Promise<T> {
  const context = Context.current();
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await body();
  } finally {
    clearInterval(timer);
  }
}

import { WRITE_SCHEDULE_TO_CLOSE_MS, WRITE_START_TO_CLOSE_MS } from '../contracts/activity-timeouts';

/** The share of a write's schedule-to-close timeout one settling wait may take, so retries still fit after it. */
const MAX_SETTLE_SHARE = 4;

/**
 * The provider settings checked against the workflows' activity timeouts, which they must fit:
 * a call's own timeout has to end a write attempt before the server's start-to-close does (its
 * retry then waits PROVIDER_WRITE_SETTLE_MS), and the wait after an attempt the server ended
 * (PROVIDER_TIMEOUT_MS plus PROVIDER_WRITE_SETTLE_MS) has to leave room for retries.
 */
export function activityTimeoutProblems(settings: {
  providerTimeoutMs: number;
  writeSettleMs: number;
}): { variable: string; reason: string }[] {
  const { providerTimeoutMs, writeSettleMs } = settings;
  const problems: { variable: string; reason: string }[] = [];
  if (providerTimeoutMs >= WRITE_START_TO_CLOSE_MS) {
    problems.push({
      variable: 'PROVIDER_TIMEOUT_MS',
      reason: `is ${providerTimeoutMs} ms, not below the start-to-close timeout of provider writes (${WRITE_START_TO_CLOSE_MS} ms): the server would end a write attempt still waiting for its answer`,
    });
  }
  const settlingWait = providerTimeoutMs + writeSettleMs;
  if (settlingWait * MAX_SETTLE_SHARE > WRITE_SCHEDULE_TO_CLOSE_MS) {
    problems.push({
      variable: 'PROVIDER_WRITE_SETTLE_MS',
      reason: `plus PROVIDER_TIMEOUT_MS is ${settlingWait} ms, more than a quarter of the schedule-to-close timeout of provider writes (${WRITE_SCHEDULE_TO_CLOSE_MS} ms): a write's retries would not fit after its settling wait`,
    });
  }
  return problems;
}

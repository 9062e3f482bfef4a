import { isCancellation, log } from '@temporalio/workflow';
import type { ExpectedDuration, FinishedOrder, OrderKind } from '../src/contracts/order-durations';
import { durations } from './activity-proxies';

/*
 * One local activity for all of a run's kinds, before its orders run in parallel, and one for all
 * its finished orders, after (the training's finished order goes with the generation's kinds, in
 * the same call): never local activities at once from parallel branches. Their answers
 * reach the workflow in the order they finish the first time and in the order they were called on
 * replay, so parallel ones would let a replay issue the run's commands in another order.
 */

/**
 * Adds a run's finished orders to what later runs of their kinds learn from, then answers what
 * finished runs of each kind in `expect` lead to expect; a kind too few runs have finished (or
 * every kind, when the store could not be used) is absent, and its poll schedule backs off as
 * without it. A failure loses these samples and figures, nothing else.
 */
export async function learnDurations(
  finished: FinishedOrder[],
  expect: OrderKind[],
): Promise<Map<OrderKind, ExpectedDuration>> {
  if (finished.length === 0 && expect.length === 0) return new Map();
  try {
    return new Map(Object.entries(await durations.learnOrderDurations({ finished, expect })));
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('could not record or read the learned durations of order kinds', {
      recorded: finished.map((order) => order.kind),
      expected: expect,
      error: messageOf(err),
    });
    return new Map();
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

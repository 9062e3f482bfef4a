import { isCancellation, log } from '@temporalio/workflow';
import type { ExpectedDuration, FinishedOrder, OrderKind } from '../src/contracts/order-durations';
import { durations } from './activity-proxies';

/*
 * One local activity for all of a run's kinds, before its orders run in parallel, and one for all
 * its finished orders, after: never local activities at once from parallel branches. Their answers
 * reach the workflow in the order they finish the first time and in the order they were called on
 * replay, so parallel ones would let a replay issue the run's commands in another order.
 */

/**
 * What finished runs of each kind lead to expect; a kind too few runs have finished (or every kind,
 * when the store could not be read) is absent, and its poll schedule backs off as without it.
 */
export async function expectedDurations(kinds: OrderKind[]): Promise<Map<OrderKind, ExpectedDuration>> {
  try {
    return new Map(Object.entries(await durations.expectedOrderDurations({ kinds })));
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('could not read the learned durations of order kinds', { kinds, error: messageOf(err) });
    return new Map();
  }
}

/** Adds finished runs to what later runs of their kinds learn from; a failure loses these samples, nothing else. */
export async function recordDurations(orders: FinishedOrder[]): Promise<void> {
  if (orders.length === 0) return;
  try {
    await durations.recordOrderDurations({ orders });
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('could not record the durations of finished orders', {
      kinds: orders.map((order) => order.kind),
      error: messageOf(err),
    });
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

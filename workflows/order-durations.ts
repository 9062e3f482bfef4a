import { isCancellation, log } from '@temporalio/workflow';
import type { ExpectedDuration, FinishedOrder, OrderKind } from '../src/contracts/order-durations';
import { durations } from './activity-proxies';

/**
 * What finished runs of this kind lead to expect, or undefined when too few have finished (or the
 * store could not be read): the poll schedule then backs off as it does without them.
 */
export async function expectedDuration(kind: OrderKind): Promise<ExpectedDuration | undefined> {
  try {
    return (await durations.expectedOrderDuration({ kind })) ?? undefined;
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('could not read the learned duration of an order kind', { kind, error: messageOf(err) });
    return undefined;
  }
}

/** Adds a finished run to what later runs of its kind learn from; a failure loses one sample, nothing else. */
export async function recordDuration(order: FinishedOrder): Promise<void> {
  try {
    await durations.recordOrderDuration(order);
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('could not record the duration of a finished order', {
      kind: order.kind,
      error: messageOf(err),
    });
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

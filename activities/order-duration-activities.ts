import {
  expectedDurationSchema,
  finishedOrderSchema,
  orderKindSchema,
  type ExpectedDuration,
  type FinishedOrder,
  type OrderKind,
} from '../src/contracts/order-durations';
import { estimateDuration, RECENT_RUNS } from '../src/order-durations/estimate-duration';
import { OrderDurationStore } from '../src/order-durations/order-duration-store';
import type { BlobStore } from '../src/storage';

/**
 * How long orders of a kind take, learned from finished runs kept in the workers' blob store.
 * Workflows run these as local activities: the answer is recorded in history, so a replay reads
 * the figure the run used, whatever the store holds by then.
 */
export function createOrderDurationActivities({ store }: { store: BlobStore }) {
  const durations = new OrderDurationStore(store);
  return {
    /** null until enough runs of the kind have finished (estimate-duration.ts, MIN_RUNS). */
    async expectedOrderDuration(input: { kind: OrderKind }): Promise<ExpectedDuration | null> {
      const kind = orderKindSchema.parse(input.kind);
      const expected = estimateDuration(await durations.recent(kind, RECENT_RUNS));
      return expected === undefined ? null : expectedDurationSchema.parse(expected);
    },

    async recordOrderDuration(input: FinishedOrder): Promise<void> {
      await durations.record(finishedOrderSchema.parse(input));
    },
  };
}

export type OrderDurationActivities = ReturnType<typeof createOrderDurationActivities>;

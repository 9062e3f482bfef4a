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
    /**
     * The expected finish of each kind asked for; a kind with too few finished runs is left out
     * (estimate-duration.ts, MIN_RUNS). One call for all the kinds a run needs.
     */
    async expectedOrderDurations(input: {
      kinds: OrderKind[];
    }): Promise<Record<OrderKind, ExpectedDuration>> {
      const kinds = [...new Set(input.kinds.map((kind) => orderKindSchema.parse(kind)))];
      const answers = await Promise.all(
        kinds.map(
          async (kind) => [kind, estimateDuration(await durations.recent(kind, RECENT_RUNS))] as const,
        ),
      );
      const known: Record<OrderKind, ExpectedDuration> = {};
      for (const [kind, expected] of answers) {
        if (expected !== undefined) known[kind] = expectedDurationSchema.parse(expected);
      }
      return known;
    },

    async recordOrderDurations(input: { orders: FinishedOrder[] }): Promise<void> {
      await Promise.all(input.orders.map((order) => durations.record(finishedOrderSchema.parse(order))));
    },
  };
}

export type OrderDurationActivities = ReturnType<typeof createOrderDurationActivities>;

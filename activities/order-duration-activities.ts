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
     * Adds a run's finished orders to what later runs learn from, then answers the expected
     * finish of each kind asked for; a kind with too few finished runs is left out
     * (estimate-duration.ts, MIN_RUNS). One call where a run both has finished orders and needs
     * figures (a pipeline's training ends as its generation begins), so one local activity.
     */
    async learnOrderDurations(input: {
      finished: FinishedOrder[];
      expect: OrderKind[];
    }): Promise<Record<OrderKind, ExpectedDuration>> {
      const finished = input.finished.map((order) => finishedOrderSchema.parse(order));
      const kinds = [...new Set(input.expect.map((kind) => orderKindSchema.parse(kind)))];
      await Promise.all(finished.map((order) => durations.record(order)));
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
  };
}

export type OrderDurationActivities = ReturnType<typeof createOrderDurationActivities>;

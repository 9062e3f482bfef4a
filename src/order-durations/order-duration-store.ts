import { assertValidPrefix, type BlobStore } from '../storage';
import type { FinishedOrder, OrderKind } from '../contracts/order-durations';
import { RECENT_RUNS } from './estimate-duration';

const PREFIX = 'order-durations/';
/** Kept per kind: the runs the estimate reads, and as many again so a record racing a prune loses none of those. */
const KEPT_RUNS = 2 * RECENT_RUNS;
/** `<seenDoneAt>-<orderId>-<afterMs>-<byMs>.json`, the time zero-padded so key order is time order. */
const KEY = /^(\d{15})-(\d+)-(\d+)-(\d+)\.json$/;

/**
 * Finished orders by kind in the blob store the workers share (a directory, or S3 across
 * machines). Each run is one object whose key holds its figures, so reading a kind is one listing
 * and writers never overwrite each other; recording the same run twice (an activity retry) lands
 * on the same key. Oldest runs past KEPT_RUNS are deleted as new ones come.
 */
export class OrderDurationStore {
  constructor(private readonly store: BlobStore) {}

  async record(order: FinishedOrder): Promise<void> {
    const name = [String(order.seenDoneAt).padStart(15, '0'), order.orderId, order.afterMs, order.byMs].join(
      '-',
    );
    await this.store.put(
      `${prefixOf(order.kind)}${name}.json`,
      Buffer.from(JSON.stringify(order)),
      'application/json',
    );
    const kept = await this.store.listKeys(prefixOf(order.kind));
    for (const old of kept.slice(0, Math.max(0, kept.length - KEPT_RUNS))) await this.store.delete(old);
  }

  /** The newest `limit` finished runs of the kind, oldest first. */
  async recent(kind: OrderKind, limit: number): Promise<FinishedOrder[]> {
    const keys = await this.store.listKeys(prefixOf(kind));
    const runs: FinishedOrder[] = [];
    for (const key of keys) {
      const match = KEY.exec(key.slice(prefixOf(kind).length));
      if (!match) continue;
      const [, seenDoneAt, orderId, afterMs, byMs] = match.map(Number);
      runs.push({ kind, seenDoneAt: seenDoneAt!, orderId: orderId!, afterMs: afterMs!, byMs: byMs! });
    }
    return runs.sort((a, b) => a.seenDoneAt - b.seenDoneAt).slice(-limit);
  }
}

function prefixOf(kind: OrderKind): string {
  return assertValidPrefix(`${PREFIX}${kind}/`);
}

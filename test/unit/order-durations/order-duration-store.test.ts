import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrderDurationActivities } from '../../../activities/order-duration-activities';
import type { FinishedOrder } from '../../../src/contracts/order-durations';
import { trainingKind } from '../../../src/contracts/order-kinds';
import { RECENT_RUNS } from '../../../src/order-durations/estimate-duration';
import { OrderDurationStore } from '../../../src/order-durations/order-duration-store';
import { FsBlobStore } from '../../../src/storage';

const kind = trainingKind(3);
const finished = (orderId: number, byMs = 605_000): FinishedOrder => ({
  kind,
  orderId,
  seenDoneAt: 1_700_000_000_000 + orderId,
  afterMs: byMs - 24_000,
  byMs,
});

describe('learned order durations in the blob store', () => {
  let dir: string;
  let store: FsBlobStore;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'order-durations-'));
    store = new FsBlobStore(dir);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives back the runs of a kind, oldest first, and only that kind', async () => {
    const durations = new OrderDurationStore(store);
    await durations.record(finished(2));
    await durations.record(finished(1));
    await durations.record({ ...finished(3), kind: trainingKind(5) });
    expect(await durations.recent(kind, 10)).toEqual([finished(1), finished(2)]);
  });

  it('keeps one object per run however often it is recorded (an activity retry)', async () => {
    const durations = new OrderDurationStore(store);
    await durations.record(finished(1));
    await durations.record(finished(1));
    expect(await durations.recent(kind, 10)).toHaveLength(1);
  });

  it('keeps twice RECENT_RUNS runs of a kind, dropping the oldest', async () => {
    const durations = new OrderDurationStore(store);
    const total = 2 * RECENT_RUNS + 3;
    for (let id = 1; id <= total; id++) await durations.record(finished(id));
    const kept = await durations.recent(kind, 1_000);
    expect(kept).toHaveLength(2 * RECENT_RUNS);
    expect(kept[0]!.orderId).toBe(4);
    expect((await store.list('order-durations/')).length).toBe(2 * RECENT_RUNS);
  });

  it('leaves a kind out until enough runs finished, then answers the figure they lead to expect', async () => {
    const activities = createOrderDurationActivities({ store });
    const other = 'generation-style-5';
    expect(await activities.learnOrderDurations({ finished: [], expect: [kind, other] })).toEqual({});
    // The runs recorded are read back by the same call.
    expect(
      await activities.learnOrderDurations({
        finished: [finished(1, 612_000), finished(2, 614_000), finished(3, 1_800_000), finished(4, 616_000)],
        expect: [kind, other],
      }),
    ).toEqual({
      [kind]: { typicalMs: 603_000, earliestMs: 572_850, latestMs: 633_150, runs: 4 },
    });
  });

  it('refuses a kind that is no blob key segment, and a finish before its last unfinished read', async () => {
    const activities = createOrderDurationActivities({ store });
    await expect(activities.learnOrderDurations({ finished: [], expect: ['../x'] })).rejects.toThrow(
      /lowercase/,
    );
    await expect(
      activities.learnOrderDurations({ finished: [{ ...finished(1), afterMs: 700_000 }], expect: [] }),
    ).rejects.toThrow(/afterMs/);
  });
});

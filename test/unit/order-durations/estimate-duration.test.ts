import {
  estimateDuration,
  MIN_RUNS,
  RECENT_RUNS,
  type FinishedRun,
} from '../../../src/order-durations/estimate-duration';

const SECOND = 1_000;

/** A run pinned down to ±1 s around `durationMs`, finished `order`-th. */
const run = (durationMs: number, order: number, halfWidthMs = SECOND): FinishedRun => ({
  afterMs: durationMs - halfWidthMs,
  byMs: durationMs + halfWidthMs,
  seenDoneAt: order,
});

describe('estimateDuration', () => {
  it('learns nothing from fewer than MIN_RUNS runs', () => {
    const runs = Array.from({ length: MIN_RUNS - 1 }, (_, i) => run(600 * SECOND, i));
    expect(estimateDuration(runs)).toBeUndefined();
    expect(estimateDuration([...runs, run(600 * SECOND, 9)])).toBeDefined();
  });

  it('takes the median of the runs, each at the middle of the reads around its finish', () => {
    const runs = [run(600 * SECOND, 0), run(604 * SECOND, 1), run(602 * SECOND, 2)];
    expect(estimateDuration(runs)).toMatchObject({ typicalMs: 602 * SECOND, runs: 3 });
    // Only the interval is known: (570 s, 630 s] stands for 600 s.
    const coarse = [0, 1, 2].map((i) => ({ afterMs: 570 * SECOND, byMs: 630 * SECOND, seenDoneAt: i }));
    expect(estimateDuration(coarse)?.typicalMs).toBe(600 * SECOND);
  });

  it('is moved by neither figure nor window by one run far off the others', () => {
    const steady = [run(600 * SECOND, 0), run(602 * SECOND, 1), run(604 * SECOND, 2)];
    // The same runs but one, which took 30 minutes instead of 10:05.
    const plain = estimateDuration([...steady, run(605 * SECOND, 3), run(603 * SECOND, 4)])!;
    const shrugged = estimateDuration([...steady, run(1_800 * SECOND, 3), run(603 * SECOND, 4)])!;
    expect(shrugged).toEqual(plain);
    expect(shrugged.typicalMs).toBe(603 * SECOND);
    // A mean would have put it at 842 s.
    expect(shrugged.latestMs).toBeLessThan(650 * SECOND);
  });

  it('spans at least 5% of the typical duration either side, more when runs differ or were pinned down loosely', () => {
    const alike = [run(600 * SECOND, 0), run(600 * SECOND, 1), run(600 * SECOND, 2)];
    expect(estimateDuration(alike)).toMatchObject({ earliestMs: 570 * SECOND, latestMs: 630 * SECOND });
    // Deviations 0, 40, 40 s from the median: three times their median (40 s) either side.
    const varied = [run(560 * SECOND, 0), run(600 * SECOND, 1), run(640 * SECOND, 2)];
    expect(estimateDuration(varied)).toMatchObject({ earliestMs: 480 * SECOND, latestMs: 720 * SECOND });
    // Each known only to within ±45 s: the window covers that.
    const loose = [0, 1, 2].map((i) => run(600 * SECOND, i, 45 * SECOND));
    expect(estimateDuration(loose)).toMatchObject({ earliestMs: 555 * SECOND, latestMs: 645 * SECOND });
  });

  it('follows the newest RECENT_RUNS runs, whatever order they come in', () => {
    const old = Array.from({ length: RECENT_RUNS }, (_, i) => run(300 * SECOND, i));
    const fresh = Array.from({ length: RECENT_RUNS }, (_, i) => run(600 * SECOND, RECENT_RUNS + i));
    const estimate = estimateDuration([...fresh, ...old].reverse())!;
    expect(estimate).toMatchObject({ typicalMs: 600 * SECOND, runs: RECENT_RUNS });
  });
});

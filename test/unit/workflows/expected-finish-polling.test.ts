import type { ExpectedDuration } from '../../../src/contracts/order-durations';
import { pollingOptionsSchema, type PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';
import { EXPECTED_WINDOW_READ_SHARE, nextPollDelay } from '../../../workflows/polling';

const defaults: PollingOptions = pollingOptionsSchema.parse({});
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
/** What ten-minute trainings (10:00-10:05) teach: estimate-duration.ts on such runs. */
const tenMinutes: ExpectedDuration = {
  typicalMs: 602_500,
  earliestMs: 572_500,
  latestMs: 632_500,
  runs: 5,
};

/** The workflow's loop on a virtual clock: wait, read; DONE once trainingMs have passed. */
function pollTraining(trainingMs: number, expected?: ExpectedDuration, progress = false) {
  let now = 0;
  let polls = 0;
  let figure: number | undefined;
  for (;;) {
    now += nextPollDelay({ elapsedMs: now, polls, progress: figure }, defaults, expected);
    polls++;
    if (now >= trainingMs) return { calls: polls, lagMs: now - trainingMs };
    figure = progress ? Math.floor((100 * now) / trainingMs) : undefined;
  }
}

const TRAININGS_MS = Array.from({ length: 11 }, (_, i) => 10 * MINUTE + i * 500);

describe('status reads timed by learned durations, no progress reported', () => {
  it('sees every 10:00-10:05 training within 5% of it, in at most 15 reads', () => {
    for (const trainingMs of TRAININGS_MS) {
      const { calls, lagMs } = pollTraining(trainingMs, tenMinutes);
      expect(calls).toBeLessThanOrEqual(15);
      expect(lagMs).toBeLessThanOrEqual(EXPECTED_WINDOW_READ_SHARE * tenMinutes.typicalMs + 1);
      expect(lagMs).toBeLessThanOrEqual(0.05 * trainingMs);
    }
  });

  it('reads first at the initial interval (which tells whether progress is reported), then in even steps of at most maxProgressIntervalMs to the window', () => {
    expect(nextPollDelay({ elapsedMs: 0, polls: 0 }, defaults, tenMinutes)).toBe(defaults.initialIntervalMs);
    const step = nextPollDelay({ elapsedMs: 5 * SECOND, polls: 1 }, defaults, tenMinutes);
    expect(step).toBe((572_500 - 5_000) / 5);
    expect(step).toBeLessThanOrEqual(2 * defaults.maxIntervalMs);
  });

  it('reads every 4% of the typical duration inside the window', () => {
    expect(nextPollDelay({ elapsedMs: 572_500, polls: 6 }, defaults, tenMinutes)).toBe(24_100);
    expect(nextPollDelay({ elapsedMs: 620_000, polls: 7 }, defaults, tenMinutes)).toBe(24_100);
  });

  it('backs off past the window, in proportion to the overrun, up to maxIntervalMs', () => {
    const after = (overrunMs: number) =>
      nextPollDelay({ elapsedMs: tenMinutes.latestMs + overrunMs, polls: 9 }, defaults, tenMinutes);
    expect(after(0)).toBe(24_100);
    expect(after(20 * SECOND)).toBe(34_100);
    expect(after(10 * MINUTE)).toBe(defaults.maxIntervalMs);
  });

  it('still sees a training far longer than expected within maxIntervalMs, at under 15 reads per 10 minutes', () => {
    for (const trainingMs of [15 * MINUTE, 60 * MINUTE]) {
      const { calls, lagMs } = pollTraining(trainingMs, tenMinutes);
      expect(lagMs).toBeLessThanOrEqual(defaults.maxIntervalMs);
      expect((calls * 10 * MINUTE) / trainingMs).toBeLessThanOrEqual(15);
    }
  });

  it('sees a training far shorter than expected within maxProgressIntervalMs', () => {
    expect(pollTraining(3 * MINUTE, tenMinutes).lagMs).toBeLessThanOrEqual(2 * defaults.maxIntervalMs);
  });

  it('is the plain backoff with nothing learned, which misses 5% on these trainings', () => {
    const lags = TRAININGS_MS.map((ms) => pollTraining(ms).lagMs);
    expect(Math.max(...lags)).toBeGreaterThan(0.05 * 10 * MINUTE);
  });
});

describe('status reads when the provider reports progress', () => {
  it('are timed by the progress figure as before, learned durations or not', () => {
    for (const trainingMs of TRAININGS_MS) {
      expect(pollTraining(trainingMs, tenMinutes, true)).toEqual(pollTraining(trainingMs, undefined, true));
    }
    const observation = { elapsedMs: 10 * SECOND, polls: 1, progress: 25 };
    expect(nextPollDelay(observation, defaults, tenMinutes)).toBe(nextPollDelay(observation, defaults));
  });
});

import { pollingOptionsSchema, type PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';
import { nextPollDelay, type PollObservation } from '../../../workflows/polling';

const defaults: PollingOptions = pollingOptionsSchema.parse({});

describe('polling defaults', () => {
  it('are 5 s initial, 60 s cap, 1 s floor, backoff 1.5', () => {
    expect(defaults).toEqual({
      initialIntervalMs: 5_000,
      maxIntervalMs: 60_000,
      minIntervalMs: 1_000,
      backoffCoefficient: 1.5,
    });
  });
});

describe('nextPollDelay without progress', () => {
  const delayAfter = (polls: number, options = defaults) =>
    nextPollDelay({ elapsedMs: polls * 10_000, polls }, options);

  it('starts at the initial interval and backs off geometrically', () => {
    expect([0, 1, 2, 3].map((polls) => delayAfter(polls))).toEqual([5_000, 7_500, 11_250, 16_875]);
  });

  it('never waits longer than maxIntervalMs', () => {
    const delays = Array.from({ length: 40 }, (_, polls) => delayAfter(polls));
    expect(Math.max(...delays)).toBe(60_000);
    expect(delays.slice(7)).toEqual(Array(33).fill(60_000));
  });

  it('never waits less than minIntervalMs', () => {
    const options = { ...defaults, initialIntervalMs: 10, minIntervalMs: 2_000 };
    expect(delayAfter(0, options)).toBe(2_000);
  });

  it('keeps a constant interval with backoff 1', () => {
    const options = { ...defaults, backoffCoefficient: 1 };
    expect([0, 5, 50].map((polls) => delayAfter(polls, options))).toEqual([5_000, 5_000, 5_000]);
  });

  it('ignores progress 0 and 100, which say nothing about the rate', () => {
    expect(nextPollDelay({ elapsedMs: 30_000, polls: 2, progress: 0 }, defaults)).toBe(11_250);
    expect(nextPollDelay({ elapsedMs: 30_000, polls: 2, progress: 100 }, defaults)).toBe(11_250);
  });

  it('stays finite for absurd poll counts', () => {
    expect(nextPollDelay({ elapsedMs: 0, polls: 10_000 }, defaults)).toBe(60_000);
  });
});

describe('nextPollDelay with progress', () => {
  const at = (elapsedMs: number, progress: number, polls = 3): PollObservation => ({
    elapsedMs,
    polls,
    progress,
  });

  it('aims at the finish the progress so far implies', () => {
    // 25% after 10 s: 30 s to go at that rate.
    expect(nextPollDelay(at(10_000, 25), defaults)).toBe(30_000);
    // 80% after 40 s: 10 s to go.
    expect(nextPollDelay(at(40_000, 80), defaults)).toBe(10_000);
  });

  it('does not depend on the number of polls once progress is known', () => {
    expect(nextPollDelay(at(40_000, 80, 1), defaults)).toBe(nextPollDelay(at(40_000, 80, 30), defaults));
  });

  it('waits past maxIntervalMs for an implied finish, up to twice it by default', () => {
    // 5% after 5 s: 95 s to go, one wait instead of two capped at 60 s.
    expect(nextPollDelay(at(5_000, 5, 1), defaults)).toBe(95_000);
    expect(nextPollDelay(at(60_000, 2), defaults)).toBe(120_000);
  });

  it('takes the progress cap from maxProgressIntervalMs, never below maxIntervalMs', () => {
    expect(nextPollDelay(at(60_000, 2), { ...defaults, maxProgressIntervalMs: 300_000 })).toBe(300_000);
    expect(nextPollDelay(at(60_000, 2), { ...defaults, maxProgressIntervalMs: 10_000 })).toBe(60_000);
  });

  it('keeps backoff without progress within maxIntervalMs whatever the progress cap', () => {
    const options = { ...defaults, maxProgressIntervalMs: 600_000 };
    expect(nextPollDelay({ elapsedMs: 0, polls: 100 }, options)).toBe(60_000);
  });

  it('floors an implied finish that is imminent at minIntervalMs', () => {
    expect(nextPollDelay(at(50_000, 99.9), defaults)).toBe(1_000);
  });

  it('returns whole milliseconds', () => {
    expect(Number.isInteger(nextPollDelay(at(10_000, 33), defaults))).toBe(true);
  });
});

/**
 * Drives the policy like workflows/polling.ts does: wait, poll, repeat, against an order that
 * finishes after `durationMs` and reports progress as floor(100 * elapsed / duration).
 */
function simulateTraining(durationMs: number, options: PollingOptions, reportProgress = true) {
  let now = 0;
  let polls = 0;
  let progress: number | undefined;
  const pollTimes: number[] = [];
  for (;;) {
    now += nextPollDelay({ elapsedMs: now, polls, progress }, options);
    polls++;
    pollTimes.push(now);
    if (now >= durationMs) return { statusCalls: polls, detectionLagMs: now - durationMs, pollTimes };
    if (reportProgress) progress = Math.floor((100 * now) / durationMs);
    if (polls > 10_000) throw new Error('the policy never noticed the finish');
  }
}

describe('a 10-minute linear training with default options', () => {
  const run = simulateTraining(10 * 60_000, defaults);

  it('takes at most 15 status calls', () => {
    expect(run.statusCalls).toBeLessThanOrEqual(15);
  });

  it('notices the finish within 30 s', () => {
    expect(run.detectionLagMs).toBeGreaterThanOrEqual(0);
    expect(run.detectionLagMs).toBeLessThanOrEqual(30_000);
  });

  it('polls early at first (the first status call within 5 s)', () => {
    expect(run.pollTimes[0]).toBe(5_000);
  });

  it('never waits more than the progress cap between calls', () => {
    const gaps = run.pollTimes.map((t, i) => t - (run.pollTimes[i - 1] ?? 0));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(120_000);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1_000);
  });
});

describe('orders shorter than the progress cap, with default options', () => {
  // One call to learn the rate, one at the finish it implies: the least a poll can do without
  // knowing the duration beforehand.
  it.each([
    [90_000, 2],
    [20_000, 2],
    [100_000, 2],
  ])('a %i ms order takes %i status calls', (durationMs, calls) => {
    expect(simulateTraining(durationMs, defaults).statusCalls).toBe(calls);
  });

  it('lands within the resolution of the first progress figure (1 point of it)', () => {
    for (const durationMs of [20_000, 45_000, 90_000, 100_000]) {
      const run = simulateTraining(durationMs, defaults);
      const firstFigure = Math.floor((100 * run.pollTimes[0]!) / durationMs);
      expect(run.detectionLagMs).toBeLessThanOrEqual(durationMs / firstFigure);
    }
  });
});

describe('other training lengths with default options', () => {
  it.each([1, 3, 10, 30, 120])('a %i-minute training is noticed within the cap', (minutes) => {
    const run = simulateTraining(minutes * 60_000, defaults);
    expect(run.detectionLagMs).toBeLessThanOrEqual(60_000);
    // One call per progress-capped interval (2 minutes), plus the backoff calls before the first
    // figure above 0 (6 for two hours).
    expect(run.statusCalls).toBeLessThanOrEqual(Math.ceil(minutes / 2) + 6);
  });

  it('without progress figures, the lag is still bounded by the cap', () => {
    const run = simulateTraining(10 * 60_000, defaults, false);
    expect(run.detectionLagMs).toBeLessThanOrEqual(60_000);
    expect(run.statusCalls).toBeLessThanOrEqual(17);
  });
});

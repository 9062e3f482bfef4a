/**
 * Polling a training the provider reports no progress for, timed by what earlier trainings of the
 * same kind taught: the estimator the workers' duration activity runs (src/order-durations), fed
 * run after run in memory as the blob store would be, and the poll loop of simulated-polling.ts.
 */
import type { PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';
import { estimateDuration, type FinishedRun } from '../src/order-durations/estimate-duration';
import type { PollingRun } from './polling-run';
import { simulatePolling } from './simulated-polling';

/**
 * Trainings that run before the measured ones, oldest first, in the bench's 10:00-10:05 range but
 * one: a provider hiccup at 20 minutes, which the medians must shrug off. The first three are
 * polled as if nothing were learned (estimate-duration.ts, MIN_RUNS).
 */
export const WARM_UP_TRAININGS_MS = [601_000, 603_500, 1_200_000, 604_000, 600_500];

/** What the workers keep: every finished run, in the order they finished. */
export class DurationLearning {
  private readonly runs: FinishedRun[] = [];

  expected() {
    return estimateDuration(this.runs);
  }

  learn(run: PollingRun): void {
    if (run.finish) this.runs.push({ ...run.finish, seenDoneAt: this.runs.length });
  }
}

/** One training with what is learned so far, then added to it (as a pipeline does). */
export async function learnedRun(
  learning: DurationLearning,
  options: { polling: PollingOptions; trainingMs: number; reportProgress: boolean },
): Promise<PollingRun> {
  const expected = learning.expected();
  const run = await simulatePolling({ ...options, ...(expected ? { expected } : {}) });
  learning.learn(run);
  return run;
}

/** A fresh learning that has seen WARM_UP_TRAININGS_MS, polled as the product polls them. */
export async function warmedLearning(
  polling: PollingOptions,
  reportProgress: boolean,
): Promise<DurationLearning> {
  const learning = new DurationLearning();
  for (const trainingMs of WARM_UP_TRAININGS_MS)
    await learnedRun(learning, { polling, trainingMs, reportProgress });
  return learning;
}

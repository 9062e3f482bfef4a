import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { toUploadImage } from '@avatar-pipeline/client/provider/upload-image';
import { syntheticSelfiePng } from '../src/samples/synthetic-selfie';
import { startSimulator } from '../src/simulator';
import { nextPollDelay } from '../workflows/polling';
import type { ExpectedDuration } from '../src/contracts/order-durations';
import type { PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';
import type { PollingRun } from './polling-run';

/**
 * The poll loop of workflows/polling.ts on a virtual clock: the same policy function and the
 * same order of steps (wait, then ask), against the provider simulator whose clock is that
 * virtual clock, so its STARTED/IN_PROGRESS/DONE and progress figures are the ones tests see.
 * Temporal itself is left out: a timer fires exactly when asked to. With `expected`, the reads are
 * timed by what earlier runs taught, as the workflow does when its duration store answers.
 */
export async function simulatePolling(options: {
  polling: PollingOptions;
  trainingMs: number;
  reportProgress: boolean;
  expected?: ExpectedDuration;
}): Promise<PollingRun> {
  let now = Date.UTC(2026, 0, 1);
  const sim = await startSimulator({
    progression: { mode: 'wall', trainingMs: options.trainingMs, generationMs: 1_000 },
    reportProgress: options.reportProgress,
    clock: () => now,
  });
  try {
    const provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 5_000 });
    const model = await provider.createModel({ styles: [3], gender: 1 });
    await provider.uploadTrainingImage(model.id, {
      gender: 1,
      image: toUploadImage(syntheticSelfiePng(1, 32)),
    });
    await provider.runOrder(model.id);
    const started = now;
    const finishes = started + options.trainingMs;

    let polls = 0;
    let progress: number | undefined;
    let unfinishedAtMs = 0;
    for (;;) {
      now += nextPollDelay({ elapsedMs: now - started, polls, progress }, options.polling, options.expected);
      const status = await provider.getOrderStatus(model.id);
      polls++;
      progress = status.progress;
      if (status.status === 'DONE') {
        return {
          statusCalls: polls,
          lagMs: now - finishes,
          finish: { afterMs: unfinishedAtMs, byMs: now - started },
        };
      }
      unfinishedAtMs = now - started;
      if (polls > 10_000) throw new Error('the poll loop never saw DONE');
    }
  } finally {
    await sim.stop();
  }
}

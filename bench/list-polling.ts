/**
 * The other way to poll trainings that report no progress: no per-order reads, but one
 * read of the account's model list (GET /model/list) per round, covering every training of a
 * campaign at once. Measured on a virtual clock against the provider simulator, like
 * simulated-polling.ts: N trainings run together, with lengths spread evenly over 10:00-10:05, and one
 * list read every `roundMs` until all of them show DONE.
 */
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { toUploadImage } from '@avatar-pipeline/client/provider/upload-image';
import { syntheticSelfiePng } from '../src/samples/synthetic-selfie';
import { startSimulator } from '../src/simulator';

export interface ListPollingRun {
  trainings: number;
  listCalls: number;
  /** List reads shared out: each read covers every training. */
  callsPerTraining: number;
  meanLagMs: number;
  maxLagMs: number;
  /** The size of the last list answer: it carries every model of the account, not only these. */
  answerBytes: number;
}

export async function simulateListPolling(options: {
  trainings: number;
  baseTrainingMs: number;
  spreadMs: number;
  roundMs: number;
}): Promise<ListPollingRun> {
  let now = Date.UTC(2026, 0, 1);
  const sim = await startSimulator({
    progression: { mode: 'wall', trainingMs: options.baseTrainingMs, generationMs: 1_000 },
    reportProgress: false,
    clock: () => now,
  });
  try {
    const provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 5_000 });
    const finishes = new Map<number, number>();
    const started = now;
    for (let i = 0; i < options.trainings; i++) {
      // Spread evenly, each in the middle of its share: one training alone is the range's middle.
      const trainingMs =
        options.baseTrainingMs + Math.round(((i + 0.5) * options.spreadMs) / options.trainings);
      sim.setOptions({ progression: { mode: 'wall', trainingMs, generationMs: 1_000 } });
      const model = await provider.createModel({ styles: [3], gender: 1 });
      await provider.uploadTrainingImage(model.id, {
        gender: 1,
        image: toUploadImage(syntheticSelfiePng(1, 32)),
      });
      await provider.runOrder(model.id);
      finishes.set(model.id, started + trainingMs);
    }
    const lags: number[] = [];
    let listCalls = 0;
    let answerBytes = 0;
    while (finishes.size > 0) {
      now += options.roundMs;
      const answer = await fetch(`${sim.url}/model/list`, { headers: { Authorization: 'Bearer sim-key' } });
      const text = await answer.text();
      answerBytes = Buffer.byteLength(text);
      listCalls++;
      for (const model of JSON.parse(text) as { id: number; status: string }[]) {
        const finish = finishes.get(model.id);
        if (finish === undefined || model.status !== 'DONE') continue;
        lags.push(now - finish);
        finishes.delete(model.id);
      }
      if (listCalls > 10_000) throw new Error('the list rounds never saw every training DONE');
    }
    return {
      trainings: options.trainings,
      listCalls,
      callsPerTraining: listCalls / options.trainings,
      meanLagMs: lags.reduce((sum, lag) => sum + lag, 0) / lags.length,
      maxLagMs: Math.max(...lags),
      answerBytes,
    };
  } finally {
    await sim.stop();
  }
}

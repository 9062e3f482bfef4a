/**
 * Pipeline wall time against the provider's own processing time, beside the same work driven
 * straight through the provider client by a script (history per pipeline: pipeline-history.ts).
 */
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { startSimulator } from '../src/simulator';
import { startBenchWorker } from './bench-worker';
import type { Stack } from './campaign-stack';
import { runSubjectDirect } from './campaign-direct';

export const TRAINING_MS = 4_000;
export const GENERATION_MS = 2_000;
export const STYLES = [3, 5, 7];
/** The script polls this often; the pipeline's floor is the same, so neither polls more eagerly. */
const POLL_MS = 250;
export const POLLING = { initialIntervalMs: 500, minIntervalMs: POLL_MS, maxIntervalMs: 2_000 };

export interface PipelineTiming {
  runs: number;
  /** Training plus one generation (styles run in parallel): what the provider itself takes. */
  providerMs: number;
  pipelineMedianMs: number;
  directMedianMs: number;
}

export async function measurePipelineTiming(
  stack: Stack,
  selfie: { path: string; dir: string; bytes: Buffer },
  runs = 5,
): Promise<PipelineTiming> {
  const sim = await startSimulator({
    progression: { mode: 'wall', trainingMs: TRAINING_MS, generationMs: GENERATION_MS },
  });
  const worker = await startBenchWorker(stack, sim, selfie.dir);
  const pipelineMs: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const started = Date.now();
      const pipeline = await startPipeline(
        stack.client,
        { images: [selfie.path], styles: STYLES, gender: 1, subjectId: `timing-${i}`, polling: POLLING },
        worker.placement,
      );
      await pipeline.result();
      pipelineMs.push(Date.now() - started);
    }
    const provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 });
    const directMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = Date.now();
      await runSubjectDirect(
        provider,
        { styles: STYLES, gender: 1, image: selfie.bytes },
        { firstPollMs: POLLING.initialIntervalMs, pollMs: POLL_MS },
      );
      directMs.push(Date.now() - started);
    }
    return {
      runs,
      providerMs: TRAINING_MS + GENERATION_MS,
      pipelineMedianMs: median(pipelineMs),
      directMedianMs: median(directMs),
    };
  } finally {
    await worker.stop();
    await sim.stop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

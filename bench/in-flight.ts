/**
 * Peak RSS of the product's worker process while 1,000 pipelines are in flight at once: every
 * model trains for a minute, so all of them are open together; beside it, the same worker idle
 * (started, workflow code bundled, nothing to do).
 */
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { startPipeline, type PipelineHandle } from '../src/client/pipelines';
import { startSimulator } from '../src/simulator';
import { startBenchWorker } from './bench-worker';
import type { Stack } from './campaign-stack';

export interface InFlight {
  pipelines: number;
  maxOpenAtOnce: number;
  done: number;
  idleRssMb: number;
  peakRssMb: number;
  wallS: number;
}

const TRAINING_MS = 60_000;
const START_CONCURRENCY = 25;

export async function measureInFlight(
  stack: Stack,
  selfie: { path: string; dir: string },
  pipelines = 1_000,
): Promise<InFlight> {
  const sim = await startSimulator({
    progression: { mode: 'wall', trainingMs: TRAINING_MS, generationMs: 2_000 },
  });
  // The worker's defaults, except a cache that holds every open pipeline (and its style child).
  const worker = await startBenchWorker(stack, sim, selfie.dir, {
    WORKER_MAX_CACHED_WORKFLOWS: String(pipelines * 2 + 100),
  });
  try {
    await delay(2_000);
    const idleRss = rssOf(worker.pid, 'VmRSS');
    let open = 0;
    let maxOpen = 0;
    let done = 0;
    const started = Date.now();
    const results: Promise<unknown>[] = [];
    let next = 0;
    // Sampled, not VmHWM: the high-water mark would include bundling the workflow code at startup.
    let peakRss = idleRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf(worker.pid, 'VmRSS'))), 500);
    const progress = setInterval(
      () =>
        process.stderr.write(
          `  in flight: ${open} open, ${done} done, RSS ${mb(rssOf(worker.pid, 'VmRSS')).toFixed(0)} MB\n`,
        ),
      15_000,
    );
    await Promise.all(
      Array.from({ length: START_CONCURRENCY }, async () => {
        while (next < pipelines) {
          const i = next++;
          const handle: PipelineHandle = await startPipeline(
            stack.client,
            {
              images: [selfie.path],
              styles: [3],
              gender: 1,
              subjectId: `load-${i}`,
              polling: { initialIntervalMs: 10_000, minIntervalMs: 5_000, maxIntervalMs: 20_000 },
            },
            { taskQueue: worker.taskQueue, providerTaskQueue: worker.providerTaskQueue },
          );
          open++;
          maxOpen = Math.max(maxOpen, open);
          results.push(
            handle.result().then(() => {
              open--;
              done++;
            }),
          );
        }
      }),
    );
    await Promise.all(results).finally(() => {
      clearInterval(progress);
      clearInterval(sampler);
    });
    return {
      pipelines,
      maxOpenAtOnce: maxOpen,
      done,
      idleRssMb: mb(idleRss),
      peakRssMb: mb(peakRss),
      wallS: (Date.now() - started) / 1000,
    };
  } finally {
    await worker.stop();
    await sim.stop();
  }
}

function rssOf(pid: number, field: 'VmRSS'): number {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? Number(kb) * 1024 : NaN;
}

function mb(bytes: number): number {
  return bytes / 1024 / 1024;
}

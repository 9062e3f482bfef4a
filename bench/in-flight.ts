/**
 * Peak RSS of the product's worker process while 1,000 pipelines are in flight at once: every
 * model trains for a minute, so all of them are open together; beside it, the same worker idle
 * (started, workflow bundle loaded, nothing to do), and the CPU time the worker spent (what a small
 * sticky cache costs in replays of evicted workflows).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { findFreePort } from '../dev/devserver/free-port';
import { startPipeline, type PipelineHandle } from '@avatar-pipeline/client/client/pipelines';
import { startSimulator } from '../src/simulator';
import { startBenchWorker } from './bench-worker';
import type { Stack } from './campaign-stack';

export interface InFlight {
  pipelines: number;
  maxOpenAtOnce: number;
  done: number;
  idleRssMb: number;
  peakRssMb: number;
  /** User plus system CPU seconds of the worker process from its start to the last result. */
  workerCpuS: number;
  /** The same CPU seconds by thread name (the workflow thread, the SDK core's tokio threads, V8's GC helpers…), largest first. */
  workerCpuByThread: Record<string, number>;
  wallS: number;
  /** What the worker's CPU went to, from its own metrics endpoint at the end (see workerTaskCounts). */
  tasks: WorkerTaskCounts;
}

/** Counters of the SDK's worker metrics (Prometheus), summed over their labels. */
export interface WorkerTaskCounts {
  /** Workflow tasks (activations) the worker completed. */
  workflowTasks: number;
  stickyCacheHits: number;
  /** Tasks of a run the cache no longer held: each replays the run's history from its start. */
  stickyCacheMisses: number;
  forcedEvictions: number;
  activities: number;
  localActivities: number;
  /** Provider orders that ended (training and generation), and the status reads they took in all. */
  orders: number;
  orderPolls: number;
}

const TRAINING_MS = 60_000;
const START_CONCURRENCY = 25;

export async function measureInFlight(
  stack: Stack,
  selfie: { path: string; dir: string },
  pipelines = 1_000,
  /** Worker settings over the product's defaults (e.g. WORKER_MAX_CACHED_WORKFLOWS). */
  workerEnv: Record<string, string> = {},
  /** Another build's `bin/avatar-pipeline.js` (a baseline); this checkout's by default. */
  workerBin?: string,
  /** Node's own arguments instead of the image's (e.g. other V8 heap flags). */
  nodeArgs?: readonly string[],
): Promise<InFlight> {
  const sim = await startSimulator({
    progression: { mode: 'wall', trainingMs: TRAINING_MS, generationMs: 2_000 },
  });
  const metricsAddress = `127.0.0.1:${await findFreePort()}`;
  const worker = await startBenchWorker(
    stack,
    sim,
    selfie.dir,
    { METRICS_BIND_ADDRESS: metricsAddress, ...workerEnv },
    workerBin,
    nodeArgs,
  );
  try {
    await delay(2_000);
    const idleRss = rssOf(worker.pid, 'VmRSS');
    let open = 0;
    let maxOpen = 0;
    let done = 0;
    const started = Date.now();
    const results: Promise<unknown>[] = [];
    let next = 0;
    // Sampled while the load runs (VmHWM would also count whatever the worker's start peaked at).
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
            worker.placement,
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
    const workerCpuS = cpuSecondsOf(worker.pid);
    const workerCpuByThread = cpuSecondsByThread(worker.pid);
    const tasks = await workerTaskCounts(metricsAddress);
    return {
      pipelines,
      maxOpenAtOnce: maxOpen,
      done,
      idleRssMb: mb(idleRss),
      peakRssMb: mb(peakRss),
      workerCpuS,
      workerCpuByThread,
      tasks,
      wallS: (Date.now() - started) / 1000,
    };
  } finally {
    await worker.stop();
    await sim.stop();
  }
}

/**
 * The SDK core's counters, read from the worker's Prometheus endpoint (METRICS_BIND_ADDRESS). A
 * histogram's `_count` is how many it recorded: workflow_task_execution_latency one per workflow
 * task. (workflow_task_replay_latency is recorded for cached runs' tasks too, so it counts no replays.)
 */
async function workerTaskCounts(address: string): Promise<WorkerTaskCounts> {
  const text = await (await fetch(`http://${address}/metrics`)).text();
  const sum = (name: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return {
    workflowTasks: sum('temporal_workflow_task_execution_latency_count'),
    stickyCacheHits: sum('temporal_sticky_cache_hit'),
    stickyCacheMisses: sum('temporal_sticky_cache_miss'),
    forcedEvictions: sum('temporal_sticky_cache_total_forced_eviction'),
    activities: sum('temporal_activity_execution_latency_count'),
    localActivities: sum('temporal_local_activity_execution_latency_count'),
    // The workflows' own histogram (workflows/polling.ts): one record per order, its reads as the value.
    orders: sum('avatar_pipeline_order_polls_count'),
    orderPolls: sum('avatar_pipeline_order_polls_sum'),
  };
}

/** 0 once the process is gone (a benchmark stopped by a signal stops its worker while sampling). */
function rssOf(pid: number, field: 'VmRSS'): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0;
  }
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1];
  return kb ? Number(kb) * 1024 : NaN;
}

function cpuSecondsOf(pid: number): number {
  return cpuSecondsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * Live threads only: a thread that ended took its CPU time with it from this view (the process's
 * own total keeps it), so the parts may add up to less than workerCpuS.
 */
function cpuSecondsByThread(pid: number): Record<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const seconds = cpuSecondsOfStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      byName.set(name, (byName.get(name) ?? 0) + seconds);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return Object.fromEntries([...byName].sort((a, b) => b[1] - a[1]));
}

/** utime + stime of a /proc stat line (fields 14 and 15, after the parenthesised command name). */
function cpuSecondsOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100; // USER_HZ, 100 on Linux
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

function mb(bytes: number): number {
  return bytes / 1024 / 1024;
}

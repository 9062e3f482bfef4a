/**
 * What bench/campaign.ts runs against: its own Temporal dev server (database on tmpfs when there
 * is one, so the server's disk is not what is measured), the provider simulator in this process,
 * and the product's worker (`avatar-pipeline worker`) as a child process, whose peak RSS is read
 * from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../dev/devserver';
import { startSimulator, type RunningSimulator, type StartSimulatorOptions } from '../src/simulator';
import { stopOnSignal } from './stop-on-signal';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
import type { BlobStore } from '@avatar-pipeline/client/storage/blob-store';

export interface Stack {
  dir: string;
  server: DevServer;
  client: Client;
  close(): Promise<void>;
}

export async function startStack(): Promise<Stack> {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dir = path.join(base, `avatar-bench-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const server = await startDevServer({
    dbFile: path.join(dir, 'temporal.db'),
    ui: false,
    log: () => undefined,
  });
  const stopServer = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const forget = stopOnSignal(stopServer);
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  return {
    dir,
    server,
    client,
    close: async () => {
      forget();
      await connection.close();
      await stopServer();
    },
  };
}

export interface WorkerProcess {
  pid: number;
  /** Peak resident set size so far (VmHWM), in bytes. */
  peakRss(): number;
  /** CPU time used so far (user + system), in seconds. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** Where Debian's libjemalloc2 puts the allocator, by architecture. */
const JEMALLOC_PATHS = [
  '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2',
  '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2',
  '/usr/local/lib/libjemalloc.so.2',
];

/**
 * The memory settings the package's image (Dockerfile) gives every process, so the benchmarks
 * measure the worker as deployed; a benchmark's own `env` comes on top. The image preloads
 * jemalloc; on a machine without it (`apt-get install libjemalloc2`) the worker runs on glibc's
 * allocator, and the settings printed with each figure say which.
 */
export const IMAGE_MEMORY_SETTINGS: { nodeArgs: readonly string[]; env: Readonly<Record<string, string>> } =
  (() => {
    const jemalloc = JEMALLOC_PATHS.find((file) => existsSync(file));
    if (!jemalloc) {
      process.stderr.write(
        '[bench] libjemalloc2 is not installed: the worker runs on glibc malloc, not the allocator of the image\n',
      );
    }
    return {
      nodeArgs: ['--heap-growing-percent=30'],
      env: {
        ...(jemalloc ? { LD_PRELOAD: jemalloc } : {}),
        MALLOC_ARENA_MAX: '2',
        NODE_OPTIONS: '--max-semi-space-size=2',
      },
    };
  })();

/** USER_HZ: Linux reports process times in hundredths of a second on every common build. */
const CLOCK_TICKS_PER_SECOND = 100;

/** This checkout's `avatar-pipeline` (its compiled code in dist/). */
export const OWN_BIN = path.resolve(__dirname, '../../bin/avatar-pipeline.js');

/**
 * `avatar-pipeline worker` with the given environment; resolves once both its task queues have
 * pollers. `bin`: another build's `bin/avatar-pipeline.js` (a baseline measured beside this one).
 */
export async function startWorkerProcess(
  stack: Stack,
  env: Record<string, string>,
  queues: { pipeline: string; provider: string },
  bin = OWN_BIN,
  /** Node's own arguments (V8 flags) instead of the image's. */
  nodeArgs: readonly string[] = IMAGE_MEMORY_SETTINGS.nodeArgs,
): Promise<WorkerProcess> {
  const log = openSync(path.join(stack.dir, 'worker.log'), 'a');
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, bin, 'worker'], {
    env: { ...process.env, ...IMAGE_MEMORY_SETTINGS.env, ...env },
    stdio: ['ignore', log, log],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    await Promise.race([exited, delay(30_000, undefined, { ref: false })]);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  const forget = stopOnSignal(stop);
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null)
        throw new Error(`the worker exited (${child.exitCode}); see ${stack.dir}/worker.log`);
      if ((await hasPollers(stack, queues.pipeline)) && (await hasPollers(stack, queues.provider))) break;
      if (i > 120) throw new Error('the worker did not start polling within a minute');
      await delay(500);
    }
  } catch (err) {
    forget();
    await stop();
    throw err;
  }
  return {
    pid: child.pid!,
    peakRss: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
      return kb ? Number(kb) * 1024 : NaN;
    },
    cpuSeconds: () => {
      // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised name): utime and stime in ticks.
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
    },
    stop: async () => {
      forget();
      await stop();
    },
  };
}

async function hasPollers(stack: Stack, taskQueue: string): Promise<boolean> {
  const answer = await stack.client.workflowService.describeTaskQueue({
    namespace: stack.server.namespace,
    // TASK_QUEUE_KIND_NORMAL = 1, TASK_QUEUE_TYPE_ACTIVITY = 2 (numbers: the proto package is not a dependency).
    taskQueue: { name: taskQueue, kind: 1 },
    taskQueueType: 2,
  });
  return (answer.pollers?.length ?? 0) > 0;
}

/** A fresh simulator per approach, so each one's counts are its own. */
export function freshSimulator(options: StartSimulatorOptions): Promise<RunningSimulator> {
  return startSimulator(options);
}

/** Accepted and refused (429) requests per second, sampled while an approach runs. */
export class RateSampler {
  private readonly samples: { at: number; total: number; limited: number }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly sim: RunningSimulator) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), 1_000);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  /** Accepted requests per second between the given shares of the run (e.g. 0.1-0.9: the steady part). */
  acceptedRate(fromShare: number, toShare: number): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.at === first.at) return 0;
    const span = last.at - first.at;
    const at = (share: number) =>
      this.samples.reduce((best, s) =>
        Math.abs(s.at - (first.at + share * span)) < Math.abs(best.at - (first.at + share * span)) ? s : best,
      );
    const a = at(fromShare);
    const b = at(toShare);
    return b.at > a.at ? (b.total - b.limited - (a.total - a.limited)) / ((b.at - a.at) / 1000) : 0;
  }

  /**
   * The share of the run at which the accepted requests reached `fraction` of all of them: where
   * a run's provider work is (that much) done, whatever it waits for after.
   */
  shareAtAccepted(fraction: number): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.at === first.at) return 1;
    const accepted = (s: { total: number; limited: number }) => s.total - s.limited;
    const goal = accepted(first) + fraction * (accepted(last) - accepted(first));
    const reached = this.samples.find((s) => accepted(s) >= goal) ?? last;
    return (reached.at - first.at) / (last.at - first.at);
  }

  /** Accepted requests per second in each of `parts` equal slices of the run, first to last. */
  acceptedProfile(parts: number): number[] {
    return Array.from({ length: parts }, (_, i) => this.acceptedRate(i / parts, (i + 1) / parts));
  }

  private sample(): void {
    const stats = this.sim.stats();
    this.samples.push({ at: Date.now(), total: stats.requests.total, limited: stats.rateLimited });
  }
}

/** BLOB_DIR of the stack's worker processes: where starters store campaign manifests for them. */
export function stackBlobDir(stack: Pick<Stack, 'dir'>): string {
  return path.join(stack.dir, 'blobs');
}

/**
 * The stack's image root: where benchmarks put the selfies their workers read (IMAGE_ROOTS). Not
 * the stack's own folder, which holds the blob store, and a worker refuses a root that holds it.
 */
export function stackImageDir(stack: Pick<Stack, 'dir'>): string {
  const dir = path.join(stack.dir, 'images');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The blob store the stack's workers read, for starting campaigns on them. */
export function stackBlobStore(stack: Pick<Stack, 'dir'>): BlobStore {
  return new FsBlobStore(stackBlobDir(stack));
}

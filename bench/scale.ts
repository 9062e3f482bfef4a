/**
 * The scale of one worker, each figure beside its baseline in the same run:
 * - history events of a 1-selfie × 3-style pipeline with its claim workflow, beside
 *   the target and the count before style progress stopped being signalled on every poll;
 * - peak worker RSS and the worker's CPU time (what evictions cost in replays) with N pipelines
 *   open at once (1,000 by default) under the product's defaults (`avatar-pipeline worker` with
 *   the image's memory settings, IMAGE_MEMORY_SETTINGS in bench/campaign-stack.ts, and sticky
 *   cache DEFAULT_MAX_CACHED_WORKFLOWS), beside the same load with the cache of the earlier run
 *   (every open workflow cached: 2 × N + 100), or with another build's worker and its defaults
 *   (--baseline-bin: e.g. a copy of the commit before a change, built). The worker's CPU by
 *   thread goes to stderr.
 *
 *   npm run bench:scale                     (builds, then runs dist/bench/scale.js)
 *   node dist/bench/scale.js [--pipelines 1000] [--history-runs 3] [--skip-baseline]
 *        [--baseline-bin <checkout>/bin/avatar-pipeline.js --baseline-label "before, 82ea2f4"]
 *        [--beside-env NAME=VALUE ...] [--beside-node-args "<node arguments>"]
 *
 * --skip-baseline measures only the product's defaults (for iterating; the row then says so).
 * --beside-env (repeatable) measures the defaults beside the same worker with those variables
 * set, e.g. LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 for another allocator.
 * --beside-node-args does the same with Node's own arguments (V8 flags) in place of the image's
 * (`--heap-growing-percent=30`), e.g. "--optimize-for-size"; it combines with --beside-env.
 *
 * `npm run bench` (bench/report.ts) prints the same rows as part of its table.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '@avatar-pipeline/client/config/env-schema';
import { syntheticSelfiePng } from '../src/samples/synthetic-selfie';
import { numberArg, stringArg } from './cli-args';
import { IMAGE_MEMORY_SETTINGS, stackImageDir, startStack, type Stack } from './campaign-stack';
import { measureInFlight, type InFlight } from './in-flight';
import { measurePipelineHistory } from './pipeline-history';
import { markdownTable, type Row } from './report-table';

/** The target of the issue, and the count of the last recorded run before (bench/RESULTS.md, 2026-11-22). */
const HISTORY_TARGET = 200;
const HISTORY_BEFORE = 440;
const RSS_TARGET_MB = 400;
const CPU_TARGET_S = 150;

export async function historyRows(
  stack: Stack,
  selfie: { path: string; dir: string },
  runs = 3,
): Promise<Row[]> {
  step(`history of a 1-selfie × 3-style pipeline (${runs} runs)`);
  const { median } = await measurePipelineHistory(stack, selfie, runs);
  const signals = median.byType['WORKFLOW_EXECUTION_SIGNALED'] ?? 0;
  const activities = median.byType['ACTIVITY_TASK_SCHEDULED'] ?? 0;
  const timers = median.byType['TIMER_STARTED'] ?? 0;
  const tasks = median.byType['WORKFLOW_TASK_COMPLETED'] ?? 0;
  const { pipeline, claims } = median.byWorkflow;
  return [
    {
      figure: `history of a pipeline, 1 selfie × 3 styles, with its claim workflow (server-counted, median of ${runs}; pipeline + claim; ${activities} activities, ${timers} timers, ${signals} signals, ${tasks} workflow tasks)`,
      product: `${median.events} events (${pipeline} + ${claims}), ${(median.bytes / 1024).toFixed(1)} KB`,
      baseline: `before, progress signalled on every poll: ${HISTORY_BEFORE} events`,
      target: `≤ ${HISTORY_TARGET} events`,
      met: median.events <= HISTORY_TARGET,
    },
  ];
}

/** What the product's defaults are measured beside. */
export type MemoryBaseline =
  /** This build with the cache of the earlier run: every open workflow cached (2 × N + 100). */
  | { kind: 'earlier-cache' }
  /** Another build (e.g. the commit before a change) with its own defaults. */
  | { kind: 'build'; bin: string; label: string }
  /** This build with settings over its defaults (e.g. another allocator), to see what they are worth. */
  | { kind: 'settings'; env: Record<string, string>; nodeArgs?: readonly string[] }
  | { kind: 'none' };

export async function memoryRows(
  stack: Stack,
  selfie: { path: string; dir: string },
  pipelines: number,
  baseline: MemoryBaseline = { kind: 'earlier-cache' },
): Promise<Row[]> {
  step(`${pipelines} pipelines in flight, the worker's defaults`);
  const ours = await measureInFlight(stack, selfie, pipelines);
  logCpu('defaults', ours);
  const earlierCache = pipelines * 2 + 100;
  let before: InFlight | undefined;
  let beforeLabel = 'not measured (--skip-baseline)';
  if (baseline.kind === 'earlier-cache') {
    step(
      `${pipelines} pipelines in flight, the earlier cache: sticky cache ${earlierCache} (every open workflow cached)`,
    );
    before = await measureInFlight(stack, selfie, pipelines, {
      WORKER_MAX_CACHED_WORKFLOWS: String(earlierCache),
    });
    beforeLabel = `earlier cache, sticky cache ${earlierCache}`;
  } else if (baseline.kind === 'build') {
    step(`${pipelines} pipelines in flight, ${baseline.label} (${baseline.bin}) with its defaults`);
    before = await measureInFlight(stack, selfie, pipelines, {}, baseline.bin);
    beforeLabel = `${baseline.label}, its defaults`;
  } else if (baseline.kind === 'settings') {
    const settings = [
      ...describeEnv(baseline.env),
      ...(baseline.nodeArgs ? [`node ${baseline.nodeArgs.join(' ')} (instead of the image's)`] : []),
    ].join(' ');
    step(`${pipelines} pipelines in flight, the defaults with ${settings}`);
    before = await measureInFlight(stack, selfie, pipelines, baseline.env, undefined, baseline.nodeArgs);
    beforeLabel = `the defaults with ${settings}`;
  }
  if (before) logCpu(beforeLabel, before);
  const all = (load: InFlight) => load.done === load.pipelines && load.maxOpenAtOnce === load.pipelines;
  return [
    {
      figure: `peak worker RSS and worker CPU, ${ours.maxOpenAtOnce} pipelines open at once (${ours.done}/${ours.pipelines} done in ${ours.wallS.toFixed(0)} s; idle worker ${ours.idleRssMb.toFixed(0)} MB)`,
      product: `${ours.peakRssMb.toFixed(0)} MB, worker CPU ${ours.workerCpuS.toFixed(0)} s (defaults: sticky cache ${DEFAULT_MAX_CACHED_WORKFLOWS}; the image's memory settings: ${imageMemorySettings()})`,
      baseline: before
        ? `${beforeLabel}: ${before.peakRssMb.toFixed(0)} MB, worker CPU ${before.workerCpuS.toFixed(0)} s (${before.done}/${before.pipelines} done in ${before.wallS.toFixed(0)} s)`
        : beforeLabel,
      target: `≤ ${RSS_TARGET_MB} MB and ≤ ${CPU_TARGET_S} s`,
      met:
        all(ours) &&
        (before === undefined || all(before)) &&
        ours.peakRssMb <= RSS_TARGET_MB &&
        ours.workerCpuS <= CPU_TARGET_S,
    },
  ];
}

/** The worker's CPU by thread, to stderr: where the seconds went (workflow thread, SDK core, GC). */
function logCpu(what: string, load: InFlight): void {
  const threads = Object.entries(load.workerCpuByThread)
    .filter(([, seconds]) => seconds >= 0.5)
    .map(([name, seconds]) => `${name} ${seconds.toFixed(1)}`)
    .join(', ');
  process.stderr.write(
    `  ${what}: peak RSS ${load.peakRssMb.toFixed(0)} MB, CPU ${load.workerCpuS.toFixed(1)} s (live threads: ${threads})\n`,
  );
  const t = load.tasks;
  process.stderr.write(
    `  ${what}: ${t.workflowTasks} workflow tasks (${(t.workflowTasks / load.pipelines).toFixed(1)} per pipeline), sticky cache ${t.stickyCacheHits} hits / ${t.stickyCacheMisses} misses, ${t.forcedEvictions} forced evictions, ${t.activities} activities, ${t.localActivities} local activities, ${t.orders} provider orders polled ${t.orderPolls} times (${(t.orderPolls / Math.max(1, t.orders)).toFixed(1)} each); ${((load.workerCpuS * 1000) / Math.max(1, t.workflowTasks + t.activities)).toFixed(1)} ms of CPU per task\n`,
  );
}

function imageMemorySettings(): string {
  return [...describeEnv(IMAGE_MEMORY_SETTINGS.env), `node ${IMAGE_MEMORY_SETTINGS.nodeArgs.join(' ')}`].join(
    ', ',
  );
}

function describeEnv(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).map(([name, value]) => `${name}=${value}`);
}

/** Every `--name NAME=VALUE` of the command line. */
function envArgs(argv: string[], name: string): Record<string, string> {
  const env: Record<string, string> = {};
  argv.forEach((arg, i) => {
    const setting = argv[i + 1];
    if (arg !== `--${name}` || setting === undefined) return;
    const eq = setting.indexOf('=');
    if (eq <= 0) throw new Error(`--${name} takes NAME=VALUE, not ${JSON.stringify(setting)}`);
    env[setting.slice(0, eq)] = setting.slice(eq + 1);
  });
  return env;
}

export function step(what: string): void {
  process.stderr.write(`[bench] ${what}…\n`);
}

async function main(): Promise<void> {
  const pipelines = numberArg(process.argv, 'pipelines', 1_000);
  const historyRuns = numberArg(process.argv, 'history-runs', 3);
  const baselineBin = stringArg(process.argv, 'baseline-bin');
  const besideEnv = envArgs(process.argv, 'beside-env');
  const besideNodeArgs = stringArg(process.argv, 'beside-node-args')?.split(' ').filter(Boolean);
  const baseline: MemoryBaseline = process.argv.includes('--skip-baseline')
    ? { kind: 'none' }
    : Object.keys(besideEnv).length > 0 || besideNodeArgs
      ? { kind: 'settings', env: besideEnv, ...(besideNodeArgs ? { nodeArgs: besideNodeArgs } : {}) }
      : baselineBin
        ? { kind: 'build', bin: baselineBin, label: stringArg(process.argv, 'baseline-label') ?? 'before' }
        : { kind: 'earlier-cache' };
  const stack = await startStack();
  const dir = stackImageDir(stack);
  const selfie = { path: path.join(dir, 'selfie.png'), dir };
  writeFileSync(selfie.path, syntheticSelfiePng(1, 64));
  const rows: Row[] = [];
  try {
    rows.push(...(await historyRows(stack, selfie, historyRuns)));
    rows.push(...(await memoryRows(stack, selfie, pipelines, baseline)));
  } finally {
    await stack.close();
  }
  console.log(`\n${markdownTable(rows)}`);
  const missed = rows.filter((row) => row.met === false);
  if (missed.length > 0) console.log(`Missed: ${missed.map((row) => row.figure).join('; ')}`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * Benchmark: how many status calls a pipeline makes while a model trains for 10 minutes, and how
 * late it notices the end, with the adaptive polling of workflows/polling.ts (its
 * defaults) beside a fixed 5-second poll, with and without `progress` in the provider's answers.
 *
 *   npm run bench:polling                       (builds, then runs dist/bench/polling.js)
 *   node dist/bench/polling.js --simulated-only (skip the run through Temporal)
 *
 * Part 1 runs the poll loop on a virtual clock against the provider simulator: exact and instant,
 * so it also sweeps training lengths of 10:00 to 10:05 (a fixed poll's lag depends on where the
 * end falls between two polls). Part 2 runs the real pipeline on Temporal's time-skipping test
 * server: workflow timers, activities and all, 10 simulated minutes in seconds. Part 3 runs it there
 * with learned durations: the trainings of WARM_UP_TRAININGS_MS (no progress reported) through
 * workers sharing one blob store, then a measured 10-minute one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DefaultLogger, makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { pollingOptionsSchema } from '@avatar-pipeline/client/contracts/pipeline-input';
import { WARM_UP_TRAININGS_MS } from './learned-polling';
import { fixedInterval, type NamedPolicy, type PollingRun } from './polling-run';
import { simulatePolling } from './simulated-polling';
import { measureOnTimeSkippingServer } from './time-skipped-polling';

const TRAINING_MS = 10 * 60_000;
/** The target for adaptive polling with progress: at most 15 calls, lag at most 5% of the training. */
const TARGET = { calls: 15, lagShare: 0.05 };
const SWEEP_OFFSETS_MS = Array.from({ length: 11 }, (_, i) => i * 500);

const POLICIES: NamedPolicy[] = [
  { name: 'adaptive (defaults)', polling: pollingOptionsSchema.parse({}) },
  { name: 'fixed 5 s', polling: fixedInterval(5_000) },
];
const PROGRESS = [
  { label: 'linear', reportProgress: true },
  { label: 'none', reportProgress: false },
];

interface Row {
  policy: string;
  progress: string;
  run: PollingRun;
  sweep?: { meanLagMs: number; maxLagMs: number; meanCalls: number };
}

async function main(): Promise<void> {
  const simulatedOnly = process.argv.includes('--simulated-only');
  const defaults = pollingOptionsSchema.parse({});
  console.log(
    `Polling a 10-minute training. Adaptive defaults: first wait ${defaults.initialIntervalMs / 1000} s, ` +
      `backoff x${defaults.backoffCoefficient}, between ${defaults.minIntervalMs / 1000} s and ${defaults.maxIntervalMs / 1000} s, ` +
      `aiming at the finish that progress implies.\n`,
  );

  const simulated: Row[] = [];
  for (const policy of POLICIES) {
    for (const progress of PROGRESS) {
      const run = await simulatePolling({ polling: policy.polling, trainingMs: TRAINING_MS, ...progress });
      const sweep: PollingRun[] = [];
      for (const offset of SWEEP_OFFSETS_MS) {
        sweep.push(
          await simulatePolling({ polling: policy.polling, trainingMs: TRAINING_MS + offset, ...progress }),
        );
      }
      simulated.push({
        policy: policy.name,
        progress: progress.label,
        run,
        sweep: {
          meanLagMs: mean(sweep.map((r) => r.lagMs)),
          maxLagMs: Math.max(...sweep.map((r) => r.lagMs)),
          meanCalls: mean(sweep.map((r) => r.statusCalls)),
        },
      });
    }
  }
  console.log('1. Poll loop on a virtual clock against the provider simulator');
  printTable(simulated, true);

  if (!simulatedOnly) {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), console: {} } },
    });
    const measured: Row[] = [];
    for (const policy of POLICIES) {
      for (const progress of PROGRESS) {
        const run = await measureOnTimeSkippingServer({ ...policy, ...progress, trainingMs: TRAINING_MS });
        measured.push({ policy: policy.name, progress: progress.label, run });
      }
    }
    console.log('\n2. The pipeline workflow on the time-skipping test server (10 simulated minutes each)');
    printTable(measured, false);

    const storeDir = await mkdtemp(path.join(tmpdir(), 'bench-learned-polling-'));
    try {
      const adaptive = POLICIES[0]!;
      for (const trainingMs of WARM_UP_TRAININGS_MS) {
        await measureOnTimeSkippingServer({ ...adaptive, reportProgress: false, trainingMs, storeDir });
      }
      const run = await measureOnTimeSkippingServer({
        ...adaptive,
        reportProgress: false,
        trainingMs: TRAINING_MS,
        storeDir,
      });
      console.log(
        `\n3. The same, learned from ${WARM_UP_TRAININGS_MS.length} earlier trainings in one blob store ` +
          `(${WARM_UP_TRAININGS_MS.map((ms) => seconds(ms)).join(', ')})`,
      );
      printTable([{ policy: `${adaptive.name}, learned`, progress: 'none', run }], false);
    } finally {
      await rm(storeDir, { recursive: true, force: true });
    }
  }

  const adaptive = simulated.find((r) => r.policy === POLICIES[0]!.name && r.progress === 'linear')!;
  const met = adaptive.run.statusCalls <= TARGET.calls && adaptive.run.lagMs <= TARGET.lagShare * TRAINING_MS;
  console.log(
    `\nTarget for adaptive polling with progress: at most ${TARGET.calls} calls and a lag of at most ` +
      `${TARGET.lagShare * 100}% (${(TARGET.lagShare * TRAINING_MS) / 1000} s): ${met ? 'met' : 'NOT met'} ` +
      `(${adaptive.run.statusCalls} calls, ${seconds(adaptive.run.lagMs)}).`,
  );
  if (!met) process.exitCode = 1;
}

function printTable(rows: Row[], withSweep: boolean): void {
  const header = ['policy', 'progress', 'status calls', 'lag (10:00)', '% of training'];
  if (withSweep) header.push('mean calls 10:00-10:05', 'mean lag', 'max lag');
  const lines = rows.map((row) => {
    const cells = [
      row.policy,
      row.progress,
      String(row.run.statusCalls),
      seconds(row.run.lagMs),
      `${((100 * row.run.lagMs) / TRAINING_MS).toFixed(1)}%`,
    ];
    if (withSweep && row.sweep) {
      cells.push(row.sweep.meanCalls.toFixed(1), seconds(row.sweep.meanLagMs), seconds(row.sweep.maxLagMs));
    }
    return cells;
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((cells) => cells[i]!.length)));
  const format = (cells: string[]) =>
    cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(format(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const cells of lines) console.log(format(cells));
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function mean(values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    // The SDK runtime (created by part 2) would keep the process alive.
    if (!process.argv.includes('--simulated-only')) void Runtime.instance().shutdown();
  });

/**
 * The polling figures of the benchmark report (bench/report.ts; alone: `node dist/bench/report.js
 * --only polling`), all on a virtual clock against the provider simulator, each beside its
 * baselines from the same run: the product's adaptive policy with what earlier trainings taught
 * (src/order-durations, warmed by WARM_UP_TRAININGS_MS), the same policy with nothing learned
 * (the first runs of a kind), and a fixed 5 s poll.
 *
 * A fixed poll's lag depends on where the end falls between two polls, so every policy is run
 * against trainings of 10:00 to 10:05 (every 0.5 s) and the means are reported. The learned
 * policy keeps learning through the sweep, as the workers do.
 */
import { pollingOptionsSchema, type PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';
import { learnedRun, WARM_UP_TRAININGS_MS, warmedLearning } from './learned-polling';
import { simulateListPolling } from './list-polling';
import { fixedInterval, type PollingRun } from './polling-run';
import type { Row } from './report-table';
import { simulatePolling } from './simulated-polling';

const TRAINING_MS = 10 * 60_000;
const TARGET = { calls: 15, lagShare: 0.05 };
const OFFSETS_MS = Array.from({ length: 11 }, (_, i) => i * 500);
/** A run far longer than its kind: after learning 10-minute trainings, one of 15 minutes. */
const OVERRUN_MS = 15 * 60_000;
/** List rounds as far apart as the learned window's reads (4% of 10 minutes), for the same lag. */
const LIST_ROUND_MS = 24_000;
const LIST_TRAININGS = [1, 10, 100];

interface Sweep {
  calls: number;
  maxCalls: number;
  lagMs: number;
  maxLagMs: number;
}

export async function pollingRows(): Promise<Row[]> {
  const adaptive = pollingOptionsSchema.parse({});
  const fixed = fixedInterval(5_000);
  const rows: Row[] = [];
  for (const reportProgress of [true, false]) {
    const learning = await warmedLearning(adaptive, reportProgress);
    const learned = await sweep((trainingMs) =>
      learnedRun(learning, { polling: adaptive, trainingMs, reportProgress }),
    );
    const today = await sweep((trainingMs) =>
      simulatePolling({ polling: adaptive, trainingMs, reportProgress }),
    );
    const theirs = await sweep((trainingMs) =>
      simulatePolling({ polling: fixed, trainingMs, reportProgress }),
    );
    const label = `10-min training (mean of 10:00-10:05), ${reportProgress ? 'provider reports progress' : 'no progress reported'}`;
    const product = `adaptive, learned from ${WARM_UP_TRAININGS_MS.length} earlier trainings`;
    rows.push(
      {
        figure: `status calls, ${label}`,
        product: `${learned.calls.toFixed(1)}, max ${learned.maxCalls} (${product})`,
        baseline: `nothing learned: ${today.calls.toFixed(1)}; fixed 5 s: ${theirs.calls.toFixed(1)}`,
        target: `≤ ${TARGET.calls}`,
        met: learned.maxCalls <= TARGET.calls,
      },
      {
        figure: `detection lag, ${label}`,
        product: `${s(learned.lagMs)} (${pct(learned.lagMs / TRAINING_MS)}), max ${s(learned.maxLagMs)}`,
        baseline: `nothing learned: ${s(today.lagMs)} (${pct(today.lagMs / TRAINING_MS)}); fixed 5 s: ${s(theirs.lagMs)}`,
        target: '≤ 5% (30 s)',
        met: learned.maxLagMs <= TARGET.lagShare * TRAINING_MS,
      },
    );
  }
  rows.push(await overrunRow(adaptive), ...(await listRows()));
  return rows;
}

/** The learned window must not blind the schedule to a run that outlasts it. */
async function overrunRow(adaptive: PollingOptions): Promise<Row> {
  const learning = await warmedLearning(adaptive, false);
  for (const offset of OFFSETS_MS) {
    await learnedRun(learning, {
      polling: adaptive,
      trainingMs: TRAINING_MS + offset,
      reportProgress: false,
    });
  }
  const expected = learning.expected();
  const run = await learnedRun(learning, {
    polling: adaptive,
    trainingMs: OVERRUN_MS,
    reportProgress: false,
  });
  const today = await simulatePolling({ polling: adaptive, trainingMs: OVERRUN_MS, reportProgress: false });
  const per10 = (r: PollingRun) => ((r.statusCalls * TRAINING_MS) / OVERRUN_MS).toFixed(1);
  return {
    figure: `a 15-min training after 10-min ones were learned (expected ${s(expected?.earliestMs ?? 0)}-${s(expected?.latestMs ?? 0)}), no progress reported: status calls per 10 min, lag`,
    product: `${per10(run)} per 10 min (${run.statusCalls} in all), lag ${s(run.lagMs)} (${pct(run.lagMs / OVERRUN_MS)})`,
    baseline: `nothing learned: ${per10(today)} per 10 min, lag ${s(today.lagMs)}`,
    target: `≤ ${TARGET.calls} per 10 min, lag ≤ maxIntervalMs (${s(adaptive.maxIntervalMs)})`,
    met: run.statusCalls * TRAINING_MS <= TARGET.calls * OVERRUN_MS && run.lagMs <= adaptive.maxIntervalMs,
  };
}

/** The alternative: one read of the model list a round for every training at once. */
async function listRows(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const trainings of LIST_TRAININGS) {
    const run = await simulateListPolling({
      trainings,
      baseTrainingMs: TRAINING_MS,
      spreadMs: 5_000,
      roundMs: LIST_ROUND_MS,
    });
    rows.push({
      figure: `alternative: GET /model/list every ${s(LIST_ROUND_MS)} for ${trainings} concurrent 10-min training(s) (10:00-10:05), no progress reported`,
      product: `${run.callsPerTraining.toFixed(1)} calls per training (${run.listCalls} list reads), lag ${s(run.meanLagMs)} (${pct(run.meanLagMs / TRAINING_MS)}), max ${s(run.maxLagMs)}; answer ${(run.answerBytes / 1024).toFixed(1)} KB`,
      baseline: '-',
      target: `≤ ${TARGET.calls} calls, ≤ 5% (30 s)`,
      met: run.callsPerTraining <= TARGET.calls && run.maxLagMs <= TARGET.lagShare * TRAINING_MS,
    });
  }
  return rows;
}

async function sweep(runOne: (trainingMs: number) => Promise<PollingRun>): Promise<Sweep> {
  const runs: PollingRun[] = [];
  for (const offset of OFFSETS_MS) runs.push(await runOne(TRAINING_MS + offset));
  return {
    calls: mean(runs.map((r) => r.statusCalls)),
    maxCalls: Math.max(...runs.map((r) => r.statusCalls)),
    lagMs: mean(runs.map((r) => r.lagMs)),
    maxLagMs: Math.max(...runs.map((r) => r.lagMs)),
  };
}

function mean(values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

function s(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/**
 * The `scale` scenario of bench/campaign.ts: one large campaign (auto window) and, first, the same
 * at a baseline size, in the same run. Its subjects come as an operator's do: a CSV manifest file,
 * read and checked by loadManifestFile (the manifest's limits apply), then started. Per campaign: makespan against 1.15 × (quota bound + ramp),
 * the largest history of any run on its task queue (every run of the campaign workflow across
 * continue-as-new, every pipeline, any other workflow there) against Temporal's 10,240-event
 * warning, the worker's peak RSS against 400 MB and its CPU time, and how long `campaigns status`
 * takes to answer, sampled throughout:
 * - by the client call the CLI makes (a fresh campaign handle's progress(): a describe for the
 *   progress memo, then the stored manifest to drop erased subjects), every second on the
 *   bench's open connection;
 * - by the real CLI (`avatar-pipeline campaigns status <id>`, a process of its own: start-up,
 *   connection and the same call), every --status-cli-every wall seconds.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { getCampaign } from '@avatar-pipeline/client/campaign/campaigns';
import type { CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { csvLine, loadManifestFile } from '../src/campaign/manifest';
import type { Client } from '@temporalio/client';
import { bounds, type Scale } from './campaign-scale';
import {
  launchCampaign,
  loadLine,
  markdownTable,
  simulatorOptions,
  startCampaignWorker,
  type Context,
} from './campaign-scenarios';
import { freshSimulator, OWN_BIN, stackBlobDir, stackBlobStore } from './campaign-stack';
import { runCli } from './cli-process';

/** Temporal warns about a run's history past this many events. */
export const HISTORY_EVENTS_WARNING = 10_240;
/** The worker's memory target: peak RSS at most this many MB. */
export const WORKER_RSS_TARGET_MB = 400;
/** `campaigns status` must answer within this. */
export const STATUS_TARGET_MS = 1_000;

export interface ScaleRunOptions {
  /** Wall seconds between two real-CLI status calls (0: none). */
  cliEveryS: number;
  /** The campaigns' subjectsPerRun; undefined: the product's default. */
  subjectsPerRun?: number;
}

/** Latencies in ms (and when each call began, wall ms into the campaign) and the calls that failed. */
interface Latencies {
  ms: number[];
  atMs: number[];
  /** The campaign's run each answer came from (client calls only; a failed call: the run before it). */
  runs: number[];
  failed: number;
  firstError?: string;
}

/** The largest history of each workflow type on the campaign's task queue. */
export interface HistoryByType {
  type: string;
  runs: number;
  maxEvents: number;
  maxBytes: number;
  largest: string;
}

interface ScaleFigures {
  subjects: number;
  /** Reading and checking the manifest file, in wall ms. */
  manifestMs: number;
  done: number;
  makespanS: number;
  targetS: number;
  campaignRuns: number;
  histories: HistoryByType[];
  peakRssMb: number;
  workerCpuS: number;
  requests: number;
  limited: number;
  client: Latencies;
  cli: Latencies;
  loadBefore: string;
  loadAfter: string;
}

/** The value at share `p` (0–1) of the sorted latencies, nearest rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** The baseline campaign, then the large one; prints the figures side by side and the targets. */
export async function runAtScale(
  context: Context,
  baseline: number,
  options: ScaleRunOptions,
): Promise<void> {
  const { scale, say } = context;
  const sizes = baseline > 0 && baseline < scale.subjects ? [baseline, scale.subjects] : [scale.subjects];
  say(
    `## Scale: ${sizes.map((n) => n.toLocaleString('en-US')).join(' (baseline), then ')} subjects × ` +
      `${scale.styles.length} styles at R = ${scale.rps}/s, auto window, ` +
      `${options.subjectsPerRun ?? 'the default'} subjects per run`,
  );
  say(
    '`campaigns status` latency: "client" is the call the CLI makes (a fresh handle\'s progress(): describe for the ' +
      'progress memo, stored manifest) on the bench\'s open connection, once a wall second; "CLI" is the real ' +
      `\`avatar-pipeline campaigns status\` process (start-up and connection included)` +
      (options.cliEveryS > 0 ? `, every ${options.cliEveryS} wall s.` : ' (not run).'),
  );
  const results: ScaleFigures[] = [];
  for (const subjects of sizes) {
    process.stderr.write(`scale: ${subjects} subjects…\n`);
    results.push(await oneCampaign(context, { ...scale, subjects }, options));
  }
  const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : '-');
  const latency = (l: Latencies) =>
    l.ms.length === 0
      ? '-'
      : `${ms(percentile(l.ms, 0.5))} / ${ms(percentile(l.ms, 0.99))} / ${ms(Math.max(...l.ms))} (${l.ms.length}` +
        `${l.failed > 0 ? `, ${l.failed} failed` : ''})`;
  say(
    markdownTable(
      results.map((r) => {
        const largest = r.histories[0];
        return {
          subjects: r.subjects.toLocaleString('en-US'),
          done: `${r.done}/${r.subjects}`,
          makespan: `${r.makespanS.toFixed(0)} s`,
          '1.15 × (bound + ramp)': `${r.targetS.toFixed(0)} s (${(r.makespanS / r.targetS).toFixed(2)}x)`,
          'campaign runs': String(r.campaignRuns),
          'largest history': largest ? `${largest.maxEvents} events (${largest.type})` : '-',
          'peak RSS': `${r.peakRssMb.toFixed(0)} MB`,
          'worker CPU': `${r.workerCpuS.toFixed(0)} s`,
          '429 share': `${((r.limited / Math.max(1, r.requests)) * 100).toFixed(2)}%`,
          'status, client p50/p99/max (n)': latency(r.client),
          'status, CLI p50/p99/max (n)': latency(r.cli),
        };
      }),
    ),
  );
  for (const r of results) {
    say(
      `- ${r.subjects} subjects: load ${r.loadBefore} before, ${r.loadAfter} after; ` +
        `the ${r.subjects}-row CSV manifest read and checked in ${r.manifestMs} ms.`,
    );
    say(
      `  Largest history by workflow type: ` +
        r.histories
          .map(
            (h) =>
              `${h.type} ${h.maxEvents} events, ${(h.maxBytes / 1024).toFixed(0)} KiB (${h.largest}; ${h.runs} runs)`,
          )
          .join('; '),
    );
    for (const [name, l] of [
      ['client call', r.client],
      ['CLI', r.cli],
    ] as const) {
      if (l.ms.length === 0) continue;
      const worst = l.ms.indexOf(Math.max(...l.ms));
      say(
        `  Slowest status answer (${name}): ${l.ms[worst]!.toFixed(0)} ms, asked ${(l.atMs[worst]! / 1000).toFixed(0)} wall s ` +
          `into the campaign; ${l.ms.filter((x) => x >= STATUS_TARGET_MS).length} of ${l.ms.length} at or over ${STATUS_TARGET_MS} ms.`,
      );
      if (l.firstError) say(`  A status call failed (${name}): ${l.firstError}`);
    }
    const boundary = nearRunBoundaries(r.client);
    if (boundary.near.length > 0)
      say(
        `  Client calls within ${BOUNDARY_SAMPLES} samples of a change of run (continue-as-new): max ` +
          `${ms(Math.max(...boundary.near))} of ${boundary.near.length}; elsewhere: max ${ms(Math.max(...boundary.away))} ` +
          `of ${boundary.away.length}.`,
      );
  }
  const big = results[results.length - 1]!;
  const maxStatus = Math.max(...big.client.ms);
  const largest = big.histories[0]?.maxEvents ?? 0;
  say(`Targets (${big.subjects} subjects):`);
  const targets: [string, boolean][] = [
    [`all ${big.subjects} done`, big.done === big.subjects],
    [
      `makespan ${big.makespanS.toFixed(0)} s ≤ 1.15 × (bound + ramp) = ${big.targetS.toFixed(0)} s`,
      big.makespanS <= big.targetS,
    ],
    [
      `no run's history over ${HISTORY_EVENTS_WARNING} events (largest ${largest})`,
      largest > 0 && largest <= HISTORY_EVENTS_WARNING,
    ],
    [
      `worker peak RSS ${big.peakRssMb.toFixed(0)} MB ≤ ${WORKER_RSS_TARGET_MB} MB`,
      big.peakRssMb <= WORKER_RSS_TARGET_MB,
    ],
    [
      `\`campaigns status\` (client call) under ${STATUS_TARGET_MS} ms throughout: max ${ms(maxStatus)}, ` +
        `${big.client.failed} failed`,
      big.client.ms.length > 0 && maxStatus < STATUS_TARGET_MS && big.client.failed === 0,
    ],
  ];
  for (const [name, met] of targets) say(`- ${met ? 'met' : 'MISSED'}: ${name}`);
  if (big.cli.ms.length > 0)
    say(
      `- the real CLI's wall time, process start-up included: max ${ms(Math.max(...big.cli.ms))}` +
        ` (${big.cli.ms.filter((x) => x >= STATUS_TARGET_MS).length} of ${big.cli.ms.length} at or over ${STATUS_TARGET_MS} ms)`,
    );
  say();
}

async function oneCampaign(context: Context, scale: Scale, options: ScaleRunOptions): Promise<ScaleFigures> {
  const at = { ...context, scale };
  const b = bounds(scale);
  const sim = await freshSimulator(simulatorOptions(scale));
  const on = await startCampaignWorker(at, sim);
  const store = stackBlobStore(context.stack);
  const loadBefore = loadLine();
  try {
    const read = Date.now();
    const subjects = await manifestSubjects(context, scale);
    const manifestMs = Date.now() - read;
    const started = Date.now();
    const campaign = await launchCampaign(
      at,
      on,
      subjects,
      { kind: 'auto' },
      options.subjectsPerRun !== undefined ? { subjectsPerRun: options.subjectsPerRun } : {},
    );
    const client: Latencies = { ms: [], atMs: [], runs: [], failed: 0 };
    const cli: Latencies = { ms: [], atMs: [], runs: [], failed: 0 };
    let running = true;
    const sampling = (async () => {
      while (running) {
        await timed(client, started, async () => {
          const progress = await getCampaign(context.stack.client, campaign.campaignId, { store }).progress();
          client.runs.push(progress.run);
        });
        if (client.runs.length < client.ms.length) client.runs.push(client.runs.at(-1) ?? 0);
        await delay(1_000);
      }
    })();
    const cliSampling = (async () => {
      if (!(options.cliEveryS > 0)) return;
      while (running) {
        await delay(options.cliEveryS * 1000);
        if (running) await timed(cli, started, () => cliStatus(context, campaign.campaignId));
      }
    })();
    const log = setInterval(() => {
      const last = client.ms[client.ms.length - 1];
      process.stderr.write(
        `  ${scale.subjects}: ${((Date.now() - started) / 1000).toFixed(0)} wall s, ${sim.stats().requests.total} requests, ` +
          `RSS peak ${(on.worker.peakRss() / 1024 / 1024).toFixed(0)} MB, last status ${last?.toFixed(0) ?? '-'} ms, ` +
          `max ${client.ms.length > 0 ? Math.max(...client.ms).toFixed(0) : '-'} ms, ${loadLine()}\n`,
      );
    }, 30_000);
    const summary = await campaign.result().finally(() => {
      running = false;
      clearInterval(log);
    });
    const wallS = (Date.now() - started) / 1000;
    await Promise.all([sampling, cliSampling]);
    const stats = sim.stats();
    const histories = await historiesOn(context.stack.client, on.placement.taskQueue, campaign.campaignId);
    return {
      subjects: scale.subjects,
      manifestMs,
      done: summary.subjects.filter((s) => s.status === 'DONE').length,
      makespanS: wallS / scale.timeScale,
      targetS: 1.15 * b.targetBaseS,
      campaignRuns: histories.campaignRuns,
      histories: histories.byType,
      peakRssMb: on.worker.peakRss() / 1024 / 1024,
      workerCpuS: on.worker.cpuSeconds(),
      requests: stats.requests.total,
      limited: stats.rateLimited,
      client,
      cli,
      loadBefore,
      loadAfter: loadLine(),
    };
  } finally {
    await on.worker.stop();
    await sim.stop();
  }
}

/** N subjects as a CSV manifest file beside the selfie, read and checked as `campaign start` does. */
async function manifestSubjects(context: Context, scale: Scale): Promise<CampaignSubject[]> {
  const file = path.join(path.dirname(context.selfie), `manifest-${scale.subjects}-${Date.now()}.csv`);
  const rows = Array.from({ length: scale.subjects }, (_, i) =>
    csvLine([
      `n${scale.subjects}-${String(i + 1).padStart(5, '0')}`,
      String((i % 2) + 1),
      scale.styles.join(';'),
      path.basename(context.selfie),
    ]),
  );
  await writeFile(file, csvLine(['subjectId', 'gender', 'styles', 'selfies']) + rows.join(''));
  const validation = await loadManifestFile(file, {
    imageAccess: { roots: [path.dirname(context.selfie)], urlHosts: [] },
  });
  if (validation.issues.length > 0 || validation.subjects.length !== scale.subjects)
    throw new Error(
      `the ${scale.subjects}-row manifest was refused: ${validation.issues.length} issue(s), first: ${JSON.stringify(validation.issues[0])}`,
    );
  return validation.subjects;
}

async function timed(
  into: Latencies,
  campaignStartedAt: number,
  call: () => Promise<unknown>,
): Promise<void> {
  into.atMs.push(Date.now() - campaignStartedAt);
  const start = performance.now();
  try {
    await call();
    into.ms.push(performance.now() - start);
  } catch (err) {
    // A failed answer is a missed one: its time counts too.
    into.ms.push(performance.now() - start);
    into.failed++;
    into.firstError ??= err instanceof Error ? err.message : String(err);
  }
}

/** Samples on either side of a change of run counted as at the boundary. */
const BOUNDARY_SAMPLES = 3;

/** Client-call latencies near a change of the campaign's run (continue-as-new) and away from one. */
function nearRunBoundaries(l: Latencies): { near: number[]; away: number[] } {
  const changes = l.runs.flatMap((run, i) => (i > 0 && run !== l.runs[i - 1] ? [i] : []));
  const near: number[] = [];
  const away: number[] = [];
  l.ms.forEach((ms, i) => (changes.some((c) => Math.abs(c - i) <= BOUNDARY_SAMPLES) ? near : away).push(ms));
  return { near, away };
}

/** `avatar-pipeline campaigns status <id>` as a user runs it: a process of its own; fails unless it exits 0. */
export function cliStatus(context: Context, campaignId: string, bin: string = OWN_BIN): Promise<void> {
  return runCli(bin, ['campaigns', 'status', campaignId], {
    ...process.env,
    TEMPORAL_ADDRESS: context.stack.server.address,
    TEMPORAL_NAMESPACE: context.stack.server.namespace,
    BLOB_DIR: stackBlobDir(context.stack),
    LOG_LEVEL: 'WARN',
  });
}

/**
 * Every run on the task queue (closed by now), from visibility: the largest history of each
 * workflow type, largest first, and how many runs the campaign made. The campaign's own runs are
 * described one by one, so their figures do not depend on what visibility recorded.
 */
export async function historiesOn(
  client: Client,
  taskQueue: string,
  campaignId: string,
): Promise<{ byType: HistoryByType[]; campaignRuns: number }> {
  // Visibility is written as runs close: give the last pipelines' records a moment.
  await delay(3_000);
  const byType = new Map<string, HistoryByType>();
  const note = (type: string, events: number, bytes: number, what: string) => {
    const entry = byType.get(type) ?? { type, runs: 0, maxEvents: 0, maxBytes: 0, largest: '' };
    entry.runs++;
    if (events > entry.maxEvents) {
      entry.maxEvents = events;
      entry.largest = what;
    }
    entry.maxBytes = Math.max(entry.maxBytes, bytes);
    byType.set(type, entry);
  };
  let campaignRuns = 0;
  for await (const run of client.workflow.list({ query: `TaskQueue = '${taskQueue}'` })) {
    if (run.workflowId === campaignId) {
      campaignRuns++;
      const described = await client.workflow.getHandle(campaignId, run.runId).describe();
      const bytes = Number(described.raw.workflowExecutionInfo?.historySizeBytes ?? 0);
      note(`${run.type} (each run)`, described.historyLength, bytes, `run ${run.runId.slice(0, 8)}`);
      continue;
    }
    let events = run.historyLength;
    let bytes = run.historySize ?? 0;
    if (!(events > 0)) {
      const described = await client.workflow.getHandle(run.workflowId, run.runId).describe();
      events = described.historyLength;
      bytes = Number(described.raw.workflowExecutionInfo?.historySizeBytes ?? 0);
    }
    note(run.type, events, bytes, run.workflowId);
  }
  return { byType: [...byType.values()].sort((a, b) => b.maxEvents - a.maxEvents), campaignRuns };
}

/**
 * The scenarios of bench/campaign.ts. Each approach gets a fresh simulator (so its counts are its
 * own) and, for Temporal runs, the product's worker as a child process (PROVIDER_MAX_RPS = the
 * quota on its provider task queue) on fresh task queues of the bench's own dev server.
 */
import type { RunPlacement } from '@avatar-pipeline/client/config/run-placement';
import { setMaxListeners } from 'node:events';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startCampaign, type CampaignHandle } from '@avatar-pipeline/client/campaign/campaigns';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import type { CampaignOptions, CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { DEFAULT_WINDOW_TUNING } from '../workflows/campaign/window-controller';
import { campaignShare } from '@avatar-pipeline/client/contracts/campaign/campaign-share';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { syntheticSelfiePng } from '../src/samples/synthetic-selfie';
import type { RunningSimulator, SimulatorStats, StartSimulatorOptions } from '../src/simulator';
import { runSubjectDirect } from './campaign-direct';
import {
  bounds,
  MIDDLE_PART,
  minimalRequestsPerSubject,
  scaled,
  steadyPart,
  subjectSeconds,
  type Scale,
} from './campaign-scale';
import { startBenchWorker } from './bench-worker';
import {
  freshSimulator,
  RateSampler,
  stackBlobStore,
  startStack,
  type Stack,
  type WorkerProcess,
  stackImageDir,
} from './campaign-stack';

export interface Context {
  stack: Stack;
  selfie: string;
  image: Buffer;
  scale: Scale;
  say: (line?: string) => void;
}

/** A dev server and one selfie file every campaign of the benchmark uploads. */
export async function openContext(scale: Scale, say: Context['say']): Promise<Context> {
  const stack = await startStack();
  const selfie = path.join(stackImageDir(stack), 'selfie.png');
  const image = syntheticSelfiePng(1, 64);
  writeFileSync(selfie, image);
  return { stack, selfie, image, scale, say };
}

export type WindowChoice = { kind: 'auto'; cap?: number } | { kind: 'fixed'; size: number };

interface Result {
  approach: string;
  done: number;
  total: number;
  /** Full-scale seconds. */
  makespanS: number;
  finished: boolean;
  requests: number;
  limited: number;
  /** Accepted requests per full-scale second: over the whole run, its steady part and its middle 10–90%. */
  acceptedRps: number;
  steadyRps: number;
  middleRps: number;
  peakRssMb?: number;
  window?: string;
  note?: string;
}

/** Campaign options of a window choice (the auto window's timings follow the time scale). */
export function windowOptions(choice: WindowChoice, scale: Scale): Partial<CampaignOptions> {
  if (choice.kind === 'fixed') return { maxInFlight: choice.size, fixedWindow: true };
  const t = scale.timeScale;
  return {
    maxInFlight: choice.cap ?? 'auto',
    autoWindow: {
      sampleEveryMs: Math.round(10_000 * t),
      lowBacklogMs: Math.round(DEFAULT_WINDOW_TUNING.lowBacklogMs * t),
      highBacklogMs: Math.round(DEFAULT_WINDOW_TUNING.highBacklogMs * t),
    },
  };
}

export function simulatorOptions(scale: Scale): StartSimulatorOptions {
  const wall = scaled(scale);
  return {
    progression: { mode: 'wall', trainingMs: wall.trainingMs, generationMs: wall.generationMs },
    // Four avatars on a 0-based first page: two page requests per style (the page, then an empty one).
    avatarsPerOrder: 4,
    pageSize: 8,
    firstPage: 0,
    rateLimit: { requestsPerSecond: wall.rps },
  };
}

export interface CampaignWorker {
  worker: WorkerProcess;
  placement: RunPlacement;
}

/** The product's worker as the campaign scenarios run it: the quota, and room for every subject. */
export async function startCampaignWorker(
  context: Context,
  sim: RunningSimulator,
  env: Record<string, string> = {},
): Promise<CampaignWorker> {
  const worker = await startBenchWorker(context.stack, sim, path.dirname(context.selfie), {
    PROVIDER_MAX_RPS: String(scaled(context.scale).rps),
    WORKER_MAX_CONCURRENT_ACTIVITIES: '200',
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '50',
    WORKER_MAX_CACHED_WORKFLOWS: '4000',
    ...env,
  });
  return { worker, placement: worker.placement };
}

function subjectsOf(context: Context, count: number, prefix: string): CampaignSubject[] {
  return Array.from({ length: count }, (_, i) => ({
    subjectId: `${prefix}${String(i + 1).padStart(5, '0')}`,
    gender: ((i % 2) + 1) as 1 | 2,
    styles: context.scale.styles,
    images: [context.selfie],
    mainImageIndex: 0,
    row: i + 2,
  }));
}

/** A campaign of `subjects` (a count: subjects made here, named `<prefix>00001`…; or subjects read from a manifest). */
export function launchCampaign(
  context: Context,
  on: CampaignWorker,
  subjects: number | CampaignSubject[],
  window: WindowChoice,
  extra: Partial<CampaignOptions> = {},
  prefix = 's',
): Promise<CampaignHandle> {
  const list = typeof subjects === 'number' ? subjectsOf(context, subjects, prefix) : subjects;
  return startCampaign(context.stack.client, list, {
    ...on.placement,
    // Each campaign its own tenant: the scenarios compare campaigns that share nothing but the quota.
    share: campaignShare(`bench-${prefix}-${Date.now()}`),
    store: stackBlobStore(context.stack),
    options: { polling: scaled(context.scale).polling, ...windowOptions(window, context.scale), ...extra },
  });
}

/** A progress sample: when (wall ms since start), which run, subjects in flight, the window and why. */
interface ProgressSample {
  atMs: number;
  run: number;
  running: number;
  window?: number;
  why?: string;
}

/** Samples the campaign's progress every second until stopped. */
function sampleProgress(
  campaign: CampaignHandle,
  startedAt: number,
): { samples: ProgressSample[]; stop(): void } {
  const samples: ProgressSample[] = [];
  let stopped = false;
  void (async () => {
    while (!stopped) {
      try {
        const p = await campaign.progress();
        samples.push({
          atMs: Date.now() - startedAt,
          run: p.run,
          running: p.counts.running,
          ...(p.window.mode === 'auto' ? { window: p.window.size, why: p.window.reason } : {}),
        });
      } catch {
        // A query can fail while the campaign continues as new; the next sample will do.
      }
      await delay(1_000);
    }
  })();
  return { samples, stop: () => void (stopped = true) };
}

async function campaignApproach(context: Context, label: string, window: WindowChoice): Promise<Result> {
  const { scale } = context;
  const sim = await freshSimulator(simulatorOptions(scale));
  const on = await startCampaignWorker(context, sim);
  const sampler = new RateSampler(sim);
  try {
    sampler.start();
    const started = Date.now();
    const campaign = await launchCampaign(context, on, scale.subjects, window);
    const progress = sampleProgress(campaign, started);
    const log = setInterval(() => {
      const last = progress.samples[progress.samples.length - 1];
      if (last)
        process.stderr.write(
          `  ${label}: ${((Date.now() - started) / 1000).toFixed(0)} s, run ${last.run}, ${last.running} running` +
            `${last.window !== undefined ? `, window ${last.window} (${last.why})` : ''}, ${sim.stats().requests.total} requests\n`,
        );
    }, 15_000);
    const summary = await campaign.result().finally(() => {
      clearInterval(log);
      progress.stop();
    });
    const wallS = (Date.now() - started) / 1000;
    sampler.stop();
    const stats = sim.stats();
    const windows = progress.samples.flatMap((s) => (s.window !== undefined ? [s.window] : []));
    const running = progress.samples.map((s) => s.running);
    return {
      approach: label,
      done: summary.subjects.filter((s) => s.status === 'DONE').length,
      total: scale.subjects,
      finished: true,
      makespanS: wallS / scale.timeScale,
      requests: stats.requests.total,
      limited: stats.rateLimited,
      acceptedRps: ((stats.requests.total - stats.rateLimited) / wallS) * scale.timeScale,
      ...partRates(sampler, scale, wallS),
      peakRssMb: on.worker.peakRss() / 1024 / 1024,
      window:
        windows.length > 0
          ? `window ${Math.min(...windows)}-${Math.max(...windows)}, in flight up to ${Math.max(...running)}`
          : `in flight up to ${Math.max(0, ...running)}`,
      note: `${stats.totals.modelsCreated} models, ${stats.totals.generationOrdersCreated} generation orders; ${perSubjectByEndpoint(stats, scale.subjects)}; ${statusCallsByKind(stats)}; ${profileOfR(sampler, scale)}`,
    };
  } finally {
    await on.worker.stop();
    await sim.stop();
  }
}

async function naiveApproach(context: Context, budgetS: number): Promise<Result> {
  const { scale, image } = context;
  const wall = scaled(scale);
  const sim = await freshSimulator(simulatorOptions(scale));
  const provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 });
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  const budget = setTimeout(() => abort.abort(), budgetS * 1000 * scale.timeScale);
  const sampler = new RateSampler(sim);
  let done = 0;
  const failures: string[] = [];
  try {
    sampler.start();
    const started = Date.now();
    await Promise.all(
      Array.from({ length: scale.subjects }, (_, i) =>
        runSubjectDirect(
          provider,
          { styles: scale.styles, gender: ((i % 2) + 1) as 1 | 2, image },
          // A script's usual polling: the first status after 5 s, then every 5 s.
          {
            firstPollMs: wall.polling.initialIntervalMs,
            pollMs: 5_000 * scale.timeScale,
            signal: abort.signal,
          },
        )
          .then(() => void done++)
          .catch((err: unknown) => void failures.push(err instanceof Error ? err.message : String(err))),
      ),
    );
    const wallS = (Date.now() - started) / 1000;
    sampler.stop();
    const stats = sim.stats();
    const byEndpoint = perSubjectByEndpoint(stats, scale.subjects);
    return {
      approach: 'naive Promise.all',
      done,
      total: scale.subjects,
      finished: !abort.signal.aborted,
      makespanS: wallS / scale.timeScale,
      requests: stats.requests.total,
      limited: stats.rateLimited,
      acceptedRps: ((stats.requests.total - stats.rateLimited) / wallS) * scale.timeScale,
      ...partRates(sampler, scale, wallS),
      note: [
        abort.signal.aborted ? `stopped at the ${budgetS} s budget` : '',
        failures.length > 0 ? `${failures.length} subject(s) failed, first: ${failures[0]}` : '',
        byEndpoint,
        profileOfR(sampler, scale),
      ]
        .filter(Boolean)
        .join('; '),
    };
  } finally {
    clearTimeout(budget);
    await sim.stop();
  }
}

/** Accepted requests per full-scale second over the run's steady part and over its middle. */
function partRates(
  sampler: RateSampler,
  scale: Scale,
  wallS: number,
): { steadyRps: number; middleRps: number } {
  const steady = steadyPart(wallS / scale.timeScale, subjectSeconds(scale));
  return {
    steadyRps: sampler.acceptedRate(steady.from, steady.to) * scale.timeScale,
    middleRps: sampler.acceptedRate(MIDDLE_PART.from, MIDDLE_PART.to) * scale.timeScale,
  };
}

/** Requests per subject by endpoint (429s included), busiest first: where the requests go. */
function perSubjectByEndpoint(
  stats: { requests: { byEndpoint: Record<string, number> } },
  subjects: number,
): string {
  const rows = Object.entries(stats.requests.byEndpoint).sort(([, a], [, b]) => b - a);
  return `per subject: ${rows.map(([name, n]) => `${name} ${(n / subjects).toFixed(2)}`).join(', ')}`;
}

/** Status calls per order by kind: how well polling lands on the finish (1 is the least). */
function statusCallsByKind(stats: SimulatorStats): string {
  const perOrder = (kind: 'model' | 'generation') => {
    const orders = stats.orders.filter((o) => o.kind === kind);
    const calls = orders.reduce((sum, o) => sum + o.statusCalls, 0);
    return orders.length === 0 ? '-' : (calls / orders.length).toFixed(2);
  };
  return `status calls per model ${perOrder('model')}, per generation order ${perOrder('generation')}`;
}

export function loadLine(): string {
  const [one, five] = os.loadavg();
  return `machine load average ${one!.toFixed(1)} (1 min), ${five!.toFixed(1)} (5 min) on ${os.cpus().length} cores`;
}

/** Auto window, fixed window and naive Promise.all under the quota, with the issue's targets. */
export async function runQuota(
  context: Context,
  fixed: number,
  approaches: string[] = ['auto', 'fixed', 'naive'],
): Promise<void> {
  const { scale, say } = context;
  const b = bounds(scale);
  const minimal = minimalRequestsPerSubject(scale.styles.length);
  const results: Result[] = [];
  say(`## Quota: ${scale.subjects} subjects × ${scale.styles.length} styles at R = ${scale.rps}/s`);
  say(`Load before: ${loadLine()}.`);
  process.stderr.write('auto window…\n');
  results.push(await campaignApproach(context, 'campaign, auto window', { kind: 'auto' }));
  say(`Load after the auto run: ${loadLine()}.`);
  if (approaches.includes('fixed')) {
    process.stderr.write(`fixed window of ${fixed}…\n`);
    results.push(
      await campaignApproach(context, `campaign, fixed window ${fixed}`, { kind: 'fixed', size: fixed }),
    );
  }
  if (approaches.includes('naive')) {
    process.stderr.write('naive Promise.all…\n');
    results.push(await naiveApproach(context, Math.ceil(3 * b.targetBaseS)));
  }
  say(`Load after: ${loadLine()}.`);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const table = results.map((r) => ({
    approach: r.approach,
    done: `${r.done}/${r.total}`,
    makespan: `${r.finished ? '' : '>'}${r.makespanS.toFixed(0)} s`,
    'vs bound+ramp': `${(r.makespanS / b.targetBaseS).toFixed(2)}x`,
    'accepted/s (of R)': `${r.acceptedRps.toFixed(1)} (${pct(r.acceptedRps / scale.rps)})`,
    'steady/s (of R)': `${r.steadyRps.toFixed(1)} (${pct(r.steadyRps / scale.rps)})`,
    '10–90%/s (of R)': `${r.middleRps.toFixed(1)} (${pct(r.middleRps / scale.rps)})`,
    '429 share': pct(r.requests ? r.limited / r.requests : 0),
    'requests/subject': `${(r.requests / scale.subjects).toFixed(1)} (${(r.requests / scale.subjects / minimal).toFixed(2)}x min ${minimal})`,
    'peak RSS': r.peakRssMb === undefined ? '-' : `${r.peakRssMb.toFixed(0)} MB`,
  }));
  say(markdownTable(table));
  for (const r of results)
    if (r.note || r.window) say(`- ${r.approach}: ${[r.window, r.note].filter(Boolean).join('; ')}`);
  const auto = results[0]!;
  say('Targets (auto window):');
  const targets: [string, boolean][] = [
    [`all ${scale.subjects} done`, auto.done === scale.subjects],
    [
      `steady accepted rate ≥ 90% of R (from one subject's ${b.subjectS} s to ${MIDDLE_PART.to * 100}% of the run; ` +
        `the ideal scheduler: ${pct(b.idealSteadyShare)}; over 10–90% of the run: auto ${pct(auto.middleRps / scale.rps)}, ideal ${pct(b.idealMiddleShare)})`,
      auto.steadyRps >= 0.9 * scale.rps,
    ],
    ['429 answers ≤ 1%', auto.limited <= 0.01 * auto.requests],
    [
      `makespan ≤ 1.15 × (bound + ramp) = ${(1.15 * b.targetBaseS).toFixed(0)} s`,
      auto.makespanS <= 1.15 * b.targetBaseS,
    ],
    [`requests per subject ≤ 1.2 × ${minimal}`, auto.requests / scale.subjects <= 1.2 * minimal],
  ];
  for (const [name, met] of targets) say(`- ${met ? 'met' : 'MISSED'}: ${name}`);
  say();
}

/** 1,000 subjects with subjectsPerRun 100: in flight sampled across the continue-as-new boundaries. */
export async function runRunBoundaries(context: Context, subjects = 1_000, perRun = 100): Promise<void> {
  const { scale, say } = context;
  const sim = await freshSimulator(simulatorOptions(scale));
  const on = await startCampaignWorker(context, sim);
  say(`## Run boundaries: ${subjects} subjects, subjectsPerRun ${perRun}, auto window`);
  say(`Load before: ${loadLine()}.`);
  try {
    const started = Date.now();
    const campaign = await launchCampaign(
      context,
      on,
      subjects,
      { kind: 'auto' },
      { subjectsPerRun: perRun },
      'r',
    );
    const progress = sampleProgress(campaign, started);
    const summary = await campaign.result().finally(() => progress.stop());
    const samples = progress.samples;
    const boundaries: string[] = [];
    let drained = 0;
    for (let i = 1; i < samples.length; i++) {
      const before = samples[i - 1]!;
      const after = samples[i]!;
      if (after.run === before.run) continue;
      const around = samples.slice(Math.max(0, i - 3), i + 3).map((s) => s.running);
      if (Math.min(...around) === 0) drained++;
      boundaries.push(
        `run ${before.run}→${after.run} at ${(after.atMs / 1000 / scale.timeScale).toFixed(0)} s: in flight ${around.join(', ')}`,
      );
    }
    const last = samples.findIndex((s) => s.running === 0 && s.atMs > 5_000);
    say(
      `${summary.subjects.filter((s) => s.status === 'DONE').length}/${subjects} done in ${((Date.now() - started) / 1000 / scale.timeScale).toFixed(0)} s, ${samples[samples.length - 1]?.run ?? '?'} runs.`,
    );
    const middle = samples.slice(Math.floor(samples.length * 0.1), Math.floor(samples.length * 0.9));
    const step = 100_000 * scale.timeScale;
    const windows = middle.flatMap((s) => (s.window !== undefined ? [s.window] : []));
    const inFlight = middle.map((s) => s.running);
    if (middle.length > 0)
      say(
        `Over the middle 10-90% of the run: in flight ${Math.min(...inFlight)}-${Math.max(...inFlight)}` +
          (windows.length > 0 ? `, window ${Math.min(...windows)}-${Math.max(...windows)}` : '') +
          `; ${sim.stats().requests.total} requests, ${sim.stats().rateLimited} answered 429.`,
      );
    const trace = samples.filter(
      (s, i) => i === 0 || Math.floor(s.atMs / step) > Math.floor(samples[i - 1]!.atMs / step),
    );
    say(
      `Every ${step / 1000 / scale.timeScale} s: ` +
        trace
          .map(
            (s) =>
              `${(s.atMs / 1000 / scale.timeScale).toFixed(0)} s ${s.running} in flight, window ${s.window ?? '-'} (${s.why ?? '-'})`,
          )
          .join('; '),
    );
    say(`In flight around each boundary (samples 1 s apart, 3 before and 3 after):`);
    for (const line of boundaries) say(`- ${line}`);
    say(
      `- ${drained === 0 ? 'met' : 'MISSED'}: the window never drained at a run boundary (${drained} of ${boundaries.length} boundaries touched 0)`,
    );
    if (last >= 0 && last < samples.length - 5)
      say(`  (first zero in-flight sample at ${(samples[last]!.atMs / 1000).toFixed(0)} s wall)`);
    say();
  } finally {
    await on.worker.stop();
    await sim.stop();
  }
}

/** A 300-subject campaign, then a 30-subject one 30 s later: the small one beside its time alone. */
export async function runFairness(context: Context, big = 300, small = 30, laterS = 30): Promise<void> {
  const { say } = context;
  say(
    `## Fairness: ${big}-subject campaign, then a ${small}-subject one ${laterS} s later, same queue and quota`,
  );
  say(`Load before: ${loadLine()}.`);
  const alone = await smallCampaignTime(context, small, undefined);
  const together = await smallCampaignTime(context, small, { subjects: big, laterS });
  say(
    `- ${small} subjects alone: ${alone.toFixed(0)} s; after the ${big}-subject campaign started: ${together.toFixed(0)} s (${(together / alone).toFixed(2)}x)`,
  );
  say(`- ${together <= 2.5 * alone ? 'met' : 'MISSED'}: within 2.5 × its time alone`);
  say(`Load after: ${loadLine()}.`);
  say();
}

async function smallCampaignTime(
  context: Context,
  small: number,
  big: { subjects: number; laterS: number } | undefined,
): Promise<number> {
  const { scale } = context;
  const sim = await freshSimulator(simulatorOptions(scale));
  const on = await startCampaignWorker(context, sim);
  try {
    let bigCampaign: CampaignHandle | undefined;
    if (big) {
      bigCampaign = await launchCampaign(context, on, big.subjects, { kind: 'auto' }, {}, 'big');
      await delay(big.laterS * 1000 * scale.timeScale);
    }
    const started = Date.now();
    const campaign = await launchCampaign(context, on, small, { kind: 'auto' }, {}, 'small');
    await campaign.result();
    const seconds = (Date.now() - started) / 1000 / scale.timeScale;
    if (bigCampaign) await bigCampaign.cancel().catch(() => undefined);
    return seconds;
  } finally {
    await on.worker.stop();
    await sim.stop();
  }
}

/**
 * An interactive pipeline while a campaign saturates the quota, beside the same on an idle system.
 * It starts once the provider queue has a backlog (at least `afterS` s into the campaign, then
 * when the queue's signals show waiting tasks), so the figure shows priority under a backlog.
 */
export async function runPriority(context: Context, campaignSubjects = 300, afterS = 60): Promise<void> {
  const { scale, say } = context;
  say(
    `## Priority: an interactive pipeline (1 selfie × ${scale.styles.length} styles) while a ${campaignSubjects}-subject campaign saturates the quota`,
  );
  say(`Load before: ${loadLine()}.`);
  const idle = await interactiveTime(context, undefined);
  const busy = await interactiveTime(context, { subjects: campaignSubjects, afterS });
  say(
    `- idle system: ${idle.seconds.toFixed(1)} s; during the campaign: ${busy.seconds.toFixed(1)} s (${(busy.seconds / idle.seconds).toFixed(2)}x)`,
  );
  say(`  provider queue backlog when it started: ${busy.backlog}; while it ran: ${busy.during}`);
  say(`- ${busy.seconds <= 1.3 * idle.seconds ? 'met' : 'MISSED'}: within 1.3 × its idle time`);
  say(`Load after: ${loadLine()}.`);
  say();
}

/** A provider queue reading: tasks waiting and the age of the oldest, in full-scale seconds. */
interface Backlog {
  count: number;
  ageS: number;
}

async function interactiveTime(
  context: Context,
  campaign: { subjects: number; afterS: number } | undefined,
): Promise<{ seconds: number; backlog: string; during: string }> {
  const { scale, stack } = context;
  const sim = await freshSimulator(simulatorOptions(scale));
  const on = await startCampaignWorker(context, sim);
  const show = (b: Backlog) => `${b.count} tasks, oldest ${b.ageS.toFixed(1)} s`;
  try {
    let running: CampaignHandle | undefined;
    let backlog = '-';
    if (campaign) {
      const launched = Date.now();
      running = await launchCampaign(context, on, campaign.subjects, { kind: 'auto' }, {}, 'load');
      await delay(campaign.afterS * 1000 * scale.timeScale);
      // Then until the queue has a backlog: tasks waiting longer than the window's low mark.
      const lowS = DEFAULT_WINDOW_TUNING.lowBacklogMs / 1000;
      let reading = await providerBacklog(stack, on.placement.providerTaskQueue, scale);
      while (
        !(reading.count >= 10 && reading.ageS >= lowS) &&
        Date.now() - launched < 600_000 * scale.timeScale
      ) {
        await delay(250);
        reading = await providerBacklog(stack, on.placement.providerTaskQueue, scale);
      }
      backlog = `${show(reading)}, ${((Date.now() - launched) / 1000 / scale.timeScale).toFixed(0)} s into the campaign`;
    }
    const seen: Backlog[] = [];
    let watching = campaign !== undefined;
    const watcher = (async () => {
      while (watching) {
        seen.push(
          await providerBacklog(stack, on.placement.providerTaskQueue, scale).catch(() => ({
            count: 0,
            ageS: 0,
          })),
        );
        await delay(1_000 * scale.timeScale);
      }
    })();
    const started = Date.now();
    const pipeline = await startPipeline(
      stack.client,
      { images: [context.selfie], styles: scale.styles, gender: 1, polling: scaled(scale).polling },
      on.placement,
    );
    await pipeline.result().finally(() => void (watching = false));
    const seconds = (Date.now() - started) / 1000 / scale.timeScale;
    await watcher;
    const during =
      seen.length === 0
        ? '-'
        : `median ${show([...seen].sort((a, b) => a.count - b.count)[Math.floor(seen.length / 2)]!)}, ` +
          `largest ${show(seen.reduce((a, b) => (b.count > a.count ? b : a)))} (${seen.length} readings, one a second)`;
    if (running) await running.cancel().catch(() => undefined);
    return { seconds, backlog, during };
  } finally {
    await on.worker.stop();
    await sim.stop();
  }
}

async function providerBacklog(stack: Stack, taskQueue: string, scale: Scale): Promise<Backlog> {
  const answer = await stack.client.workflowService.describeTaskQueue({
    namespace: stack.server.namespace,
    taskQueue: { name: taskQueue, kind: 1 },
    taskQueueType: 2,
    reportStats: true,
  });
  const age = answer.stats?.approximateBacklogAge;
  const ageMs = age ? Number(age.seconds ?? 0) * 1000 + (age.nanos ?? 0) / 1e6 : 0;
  return { count: Number(answer.stats?.approximateBacklogCount ?? 0), ageS: ageMs / 1000 / scale.timeScale };
}

export function markdownTable(rows: Record<string, string>[]): string {
  const header = Object.keys(rows[0] ?? {});
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(header),
    line(header.map(() => '---')),
    ...rows.map((r) => line(header.map((h) => r[h] ?? ''))),
  ].join('\n');
}

/** Where in the run the quota was used: accepted requests/s per tenth of it, as a share of R. */
function profileOfR(sampler: RateSampler, scale: Scale): string {
  const shares = sampler
    .acceptedProfile(10)
    .map((rps) => Math.round(((rps * scale.timeScale) / scale.rps) * 100));
  return `accepted per tenth of the run, % of R: ${shares.join(' ')}`;
}

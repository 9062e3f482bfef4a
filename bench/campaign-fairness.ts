/**
 * Benchmark: fairness against a tenant with many campaigns. Tenant A runs 5 campaigns
 * and tenant B runs 1, of the same size, against one provider quota (the bound), in three phases
 * measured in the same run, each on a fresh simulator, worker and task queues:
 *   (a) tenant keys, equal weights: B's share of the accepted provider requests while both are
 *       active (target 45–55%), and B's makespan;
 *   (b) per-campaign keys (every campaign its own fairness key and window, as before tenants):
 *       B's makespan; target (a) ≤ 0.6 × (b);
 *   (c) tenant keys, weights A 3 : B 1: shares within ±5 points of 75/25.
 *
 *   npm run bench:fairness
 *   node dist/bench/campaign-fairness.js [--per-campaign 10] [--styles 2] [--training 90]
 *     [--generation 20] [--rps 2] [--time-scale 0.5] [--shares-for 300] [--phases a,b,c]
 *
 * The quota is the bound: with R = 2 requests/s a subject (about 20 requests over 110 s) demands
 * 0.2 requests/s, so the starting windows (10 subjects per unit of weight) already ask more than R
 * of each tenant. A phase ends when B's campaign ends (A's are then cancelled); phase (c) measures
 * shares only and stops after --shares-for full-scale seconds if B is still running.
 *
 * Attribution: A's subjects ask for styles 3 and 5, B's for 8 and 11, so every provider order
 * (model or generation) belongs to one tenant by its styles. A tenant's accepted requests are the
 * ones the simulator counts on its orders: one create per order, uploads, selects, run attempts and
 * status calls (a 429 is answered before any of these is counted). Avatar page reads and list
 * calls are not counted per order; they are the same few per subject for both tenants.
 *
 * Time scale: --time-scale s multiplies every duration (training, generation, the polling
 * intervals, the window's thresholds and sampling) and divides the quota (R / s requests per wall
 * second), as bench/campaign-scale.ts does; times are printed in full-scale seconds.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startCampaign, type CampaignHandle } from '@avatar-pipeline/client/campaign/campaigns';
import type { CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { campaignShare, type CampaignShare } from '@avatar-pipeline/client/contracts/campaign/campaign-share';
import { syntheticSelfiePng } from '../src/samples/synthetic-selfie';
import type { RunningSimulator } from '../src/simulator';
import { numberArg } from './cli-args';
import { scaled, subjectSeconds, type Scale } from './campaign-scale';
import {
  simulatorOptions,
  startCampaignWorker,
  windowOptions,
  type CampaignWorker,
  type Context,
} from './campaign-scenarios';
import { freshSimulator, stackBlobStore, startStack } from './campaign-stack';

const STYLES_OF = { A: [3, 5, 7], B: [8, 11, 12] } as const;
type Tenant = keyof typeof STYLES_OF;
const A_CAMPAIGNS = 5;

/** Accepted requests the simulator attributes to each tenant's orders so far. */
function attributed(sim: RunningSimulator): Record<Tenant, number> {
  const counts = { A: 0, B: 0 };
  for (const order of sim.stats().orders) {
    const tenant: Tenant = (STYLES_OF.A as readonly number[]).includes(order.styles[0]!) ? 'A' : 'B';
    counts[tenant] += 1 + order.uploads + order.selects + order.runAttempts + order.statusCalls;
  }
  return counts;
}

interface Phase {
  label: string;
  /** The share of campaign k of tenant t (k = 0 for B's one campaign). */
  share(tenant: Tenant, k: number): CampaignShare;
}

interface PhaseResult {
  /** Full-scale seconds from the starts to B's end (undefined when the phase was stopped before). */
  bMakespanS: number | undefined;
  /** B's share of attributed accepted requests from the start to the first tenant's end, and after the warm-up. */
  bShare: number;
  bShareSteady: number;
  requests: Record<Tenant, number>;
  aDoneWhenBEnded: number;
}

async function runPhase(
  context: Context,
  phase: Phase,
  perCampaign: number,
  /** Stop measuring after this many wall milliseconds even if B has not ended. */
  stopAfterMs = Number.POSITIVE_INFINITY,
): Promise<PhaseResult> {
  const { scale, stack } = context;
  const sim = await freshSimulator(simulatorOptions(scale));
  const on: CampaignWorker = await startCampaignWorker(context, sim);
  const subjectsOf = (tenant: Tenant, k: number): CampaignSubject[] =>
    Array.from({ length: perCampaign }, (_, i) => ({
      subjectId: `${tenant.toLowerCase()}${k}-${String(i + 1).padStart(4, '0')}`,
      gender: ((i % 2) + 1) as 1 | 2,
      styles: STYLES_OF[tenant].slice(0, scale.styles.length),
      images: [context.selfie],
      mainImageIndex: 0,
      row: i + 2,
    }));
  const launch = (tenant: Tenant, k: number): Promise<CampaignHandle> =>
    startCampaign(stack.client, subjectsOf(tenant, k), {
      ...on.placement,
      store: stackBlobStore(stack),
      share: phase.share(tenant, k),
      options: { polling: scaled(scale).polling, ...windowOptions({ kind: 'auto' }, scale) },
    });
  const samples: { atMs: number; counts: Record<Tenant, number> }[] = [];
  const started = Date.now();
  const sample = () => samples.push({ atMs: Date.now() - started, counts: attributed(sim) });
  const sampler = setInterval(sample, 1_000);
  try {
    const campaigns = await Promise.all([
      ...Array.from({ length: A_CAMPAIGNS }, (_, k) => launch('A', k + 1)),
      launch('B', 0),
    ]);
    const b = campaigns[A_CAMPAIGNS]!;
    const as = campaigns.slice(0, A_CAMPAIGNS);
    const log = setInterval(() => {
      const last = samples[samples.length - 1];
      if (last)
        process.stderr.write(
          `  ${phase.label}: ${(last.atMs / 1000).toFixed(0)} s wall, attributed requests A ${last.counts.A}, B ${last.counts.B}\n`,
        );
    }, 15_000);
    let aEndedMs: number | undefined;
    void Promise.all(as.map((c) => c.result())).then(
      () => (aEndedMs = Date.now() - started),
      () => undefined,
    );
    const stopAt = Date.now() + stopAfterMs;
    const bSummary = await Promise.race([
      b.result(),
      delay(Math.min(stopAfterMs, 2 ** 31 - 1)).then(() => undefined),
    ]).finally(() => clearInterval(log));
    const bEndedMs = Math.min(Date.now(), stopAt) - started;
    sample();
    const bothUntil = Math.min(bEndedMs, aEndedMs ?? Number.POSITIVE_INFINITY);
    const at = (ms: number) =>
      samples.reduce((best, s) => (Math.abs(s.atMs - ms) < Math.abs(best.atMs - ms) ? s : best));
    const shareOfB = (fromMs: number) => {
      const from = at(fromMs);
      const to = at(bothUntil);
      const a = to.counts.A - from.counts.A;
      const bb = to.counts.B - from.counts.B;
      return a + bb > 0 ? bb / (a + bb) : 0;
    };
    const aDone = (await Promise.all(as.map((c) => c.summary().catch(() => undefined)))).reduce(
      (sum, s) => sum + (s ? s.succeeded : 0),
      0,
    );
    const end = samples[samples.length - 1]!;
    // A is stopped once B has ended: what is measured is over.
    const all = bSummary ? as : [...as, b];
    await Promise.all(all.map((c) => c.cancel().catch(() => undefined)));
    await Promise.race([Promise.all(all.map((c) => c.result().catch(() => undefined))), delay(60_000)]);
    if (bSummary && bSummary.succeeded !== perCampaign)
      process.stderr.write(`  ${phase.label}: B finished ${bSummary.succeeded} of ${perCampaign} subjects\n`);
    return {
      bMakespanS: bSummary ? bEndedMs / 1000 / scale.timeScale : undefined,
      bShare: shareOfB(0),
      bShareSteady: shareOfB(subjectSeconds(scale) * 1000 * scale.timeScale),
      requests: end.counts,
      aDoneWhenBEnded: aDone,
    };
  } finally {
    clearInterval(sampler);
    await on.worker.stop();
    await sim.stop();
  }
}

function loadLine(): string {
  const [one, five] = os.loadavg();
  return `machine load average ${one!.toFixed(1)} (1 min), ${five!.toFixed(1)} (5 min) on ${os.cpus().length} cores`;
}

async function main(): Promise<void> {
  const argv = process.argv;
  const styles = numberArg(argv, 'styles', 2);
  const scale: Scale = {
    subjects: 0,
    styles: STYLES_OF.A.slice(0, styles),
    trainingS: numberArg(argv, 'training', 90),
    generationS: numberArg(argv, 'generation', 20),
    rps: numberArg(argv, 'rps', 2),
    timeScale: numberArg(argv, 'time-scale', 0.5),
  };
  const perCampaign = numberArg(argv, 'per-campaign', 10);
  // Phase (c) measures shares only: it stops after this many full-scale seconds if B is still running.
  const sharesForS = numberArg(argv, 'shares-for', 300);
  const i = argv.indexOf('--phases');
  const phases = (i >= 0 && argv[i + 1] ? argv[i + 1]! : 'a,b,c').split(',');
  const wall = scaled(scale);
  const say = (line = '') => console.log(line);
  say(
    `Fairness benchmark: tenant A runs ${A_CAMPAIGNS} campaigns and tenant B 1, ${perCampaign} subjects each × ` +
      `${styles} styles; training ${scale.trainingS} s, generation ${scale.generationS} s, quota R = ${scale.rps} ` +
      `requests/s (PROVIDER_MAX_RPS, the simulator answers 429 above it), the product's default polling, auto windows.`,
  );
  say(
    `TIME-SCALED ×${scale.timeScale}: every duration (training ${wall.trainingMs / 1000} s, generation ` +
      `${wall.generationMs / 1000} s, polling, the window's thresholds and sampling) is multiplied by ${scale.timeScale} ` +
      `and the quota is ${wall.rps.toFixed(1)} requests/s of wall time; times below are full-scale seconds.`,
  );
  say(`Load before: ${loadLine()}.`);
  const stack = await startStack();
  const selfie = path.join(stack.dir, 'selfie.png');
  writeFileSync(selfie, syntheticSelfiePng(1, 64));
  const context: Context = { stack, selfie, image: Buffer.alloc(0), scale, say };
  const run = Date.now().toString(36);
  const tenantKey = (tenant: Tenant) => `${tenant.toLowerCase()}-${run}`;
  const results: Partial<Record<'a' | 'b' | 'c', PhaseResult>> = {};
  try {
    if (phases.includes('a')) {
      process.stderr.write('(a) tenant keys, equal weights…\n');
      results.a = await runPhase(
        context,
        { label: '(a)', share: (tenant) => campaignShare(`${tenantKey(tenant)}-a`) },
        perCampaign,
      );
    }
    if (phases.includes('b')) {
      process.stderr.write('(b) per-campaign keys…\n');
      results.b = await runPhase(
        context,
        { label: '(b)', share: (tenant, k) => campaignShare(`${tenantKey(tenant)}-b-campaign-${k}`) },
        perCampaign,
      );
    }
    if (phases.includes('c')) {
      process.stderr.write('(c) tenant keys, weights 3:1…\n');
      results.c = await runPhase(
        context,
        {
          label: '(c)',
          share: (tenant) =>
            campaignShare(`${tenantKey(tenant)}-c`, {
              fairnessWeight: tenant === 'A' ? 3 : 1,
              priorityCeiling: 1,
            }),
        },
        perCampaign,
        sharesForS * 1000 * scale.timeScale,
      );
    }
  } finally {
    await stack.close();
  }
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const line = (name: string, r: PhaseResult) =>
    `${name}: B's share ${pct(r.bShare)} while both active (${pct(r.bShareSteady)} after the first subject's ` +
    `${subjectSeconds(scale)} s), ${r.bMakespanS !== undefined ? `B's makespan ${r.bMakespanS.toFixed(0)} s` : `stopped after ${sharesForS} s, B still running`}; attributed requests A ${r.requests.A}, ` +
    `B ${r.requests.B}; A's subjects done when B ended: ${r.aDoneWhenBEnded} of ${A_CAMPAIGNS * perCampaign}`;
  say();
  if (results.a) say(`- (a) tenant keys, weights 1:1 — ${line('', results.a).slice(2)}`);
  if (results.b) say(`- (b) per-campaign keys (baseline) — ${line('', results.b).slice(2)}`);
  if (results.c) say(`- (c) tenant keys, weights 3:1 — ${line('', results.c).slice(2)}`);
  say();
  if (results.a)
    say(
      `- ${results.a.bShare >= 0.45 && results.a.bShare <= 0.55 ? 'met' : 'MISSED'}: B's share with tenant keys ${pct(results.a.bShare)} (target 45–55%)`,
    );
  if (results.a?.bMakespanS !== undefined && results.b?.bMakespanS !== undefined) {
    const ratio = results.a.bMakespanS / results.b.bMakespanS;
    say(
      `- ${ratio <= 0.6 ? 'met' : 'MISSED'}: B's makespan ${results.a.bMakespanS.toFixed(0)} s with tenant keys = ${ratio.toFixed(2)} × its ${results.b.bMakespanS.toFixed(0)} s with per-campaign keys (target ≤ 0.6)`,
    );
  }
  if (results.c)
    say(
      `- ${Math.abs(results.c.bShare - 0.25) <= 0.05 ? 'met' : 'MISSED'}: with weights 3:1 the shares are A ${pct(1 - results.c.bShare)} / B ${pct(results.c.bShare)} (target 75/25 ± 5 points)`,
    );
  say(`Load after: ${loadLine()}.`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * Benchmark: a provider key shared with the world (another client on the same quota; the quota halved).
 * A campaign runs against the simulator at the provider's ratios (bench/campaign-scale.ts) with
 * PROVIDER_MAX_RPS = R, twice side by side in the same run, each with its own simulator, worker
 * and task queues: with the provider rate controller (PROVIDER_RATE_CONTROL=adaptive) and with
 * today's fixed rate (fixed, the baseline).
 *
 *   npm run bench:shared-quota                  (builds, then runs dist/bench/shared-quota.js)
 *   node dist/bench/shared-quota.js [--scenario shared,halved] [--subjects 300] [--styles 4]
 *     [--rps 20] [--outside 8] [--outside-from 120] [--outside-to 360] [--halve-at 180]
 *     [--until 480] [--training 90] [--generation 20] [--time-scale 1]
 *
 * - shared: an outside client (bench/outside-client.ts) sends --outside requests/s at the same key
 *   from --outside-from to --outside-to seconds. Targets: our 429 share and the outside client's at
 *   most 2%; our accepted rate at least 85% of R − outside while it runs, and at least 90% of R over
 *   the 60 s after it stops.
 * - halved: the simulator's quota drops to R/2 at --halve-at seconds, for good. Targets: our 429
 *   share at most 2%; our accepted rate at least 85% of R/2 after the drop.
 * Each run is measured until --until seconds (the campaign is stopped there if it has not ended).
 * --time-scale s multiplies every duration and divides every rate (the quota, the outside client's
 * pace); the controller's own timings (its one-second sample, its cooldown and probe) are not
 * scaled, so a time-scaled run gives it less scenario time to react. Times are printed in
 * full-scale seconds.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { grantedRateQuery, grantedRateWorkflowId } from '../src/contracts/granted-rate';
import { numberArg } from './cli-args';
import { catalogStyles, scaled, type Scale } from './campaign-scale';
import {
  launchCampaign,
  loadLine,
  openContext,
  simulatorOptions,
  startCampaignWorker,
  type Context,
} from './campaign-scenarios';
import { freshSimulator } from './campaign-stack';
import { OutsideClient } from './outside-client';

type Control = 'adaptive' | 'fixed';

/** Style ids of the simulator's catalog. */

interface Scenario {
  name: 'shared' | 'halved';
  outside?: { rps: number; fromS: number; toS: number };
  halveAtS?: number;
  untilS: number;
}

/** Cumulative counts at one moment (full-scale seconds since the campaign started). */
interface Tick {
  atS: number;
  ours: { accepted: number; limited: number };
  outside: { accepted: number; limited: number };
}

/** The controller's granted rate (requests/s of wall time) when it was read. */
interface GrantedSample {
  atS: number;
  rate: number;
}

interface RunFigures {
  control: Control;
  ticks: Tick[];
  finished: boolean;
  done: number;
  makespanS?: number;
  granted: GrantedSample[];
}

async function runOne(context: Context, scenario: Scenario, control: Control): Promise<RunFigures> {
  const { scale } = context;
  const s = scale.timeScale;
  const sim = await freshSimulator(simulatorOptions(scale));
  const on = await startCampaignWorker(context, sim, { PROVIDER_RATE_CONTROL: control });
  const outside = scenario.outside
    ? new OutsideClient(sim.url, 'sim-key', scenario.outside.rps / s)
    : undefined;
  const ticks: Tick[] = [];
  const granted: GrantedSample[] = [];
  const controller = context.stack.client.workflow.getHandle(
    grantedRateWorkflowId(on.placement.providerTaskQueue),
  );
  const timers: NodeJS.Timeout[] = [];
  const started = Date.now();
  const at = (fullS: number, action: () => void) => timers.push(setTimeout(action, fullS * 1000 * s));
  const tick = () => {
    const stats = sim.stats();
    const outAccepted = outside?.accepted ?? 0;
    const outLimited = outside?.rateLimited ?? 0;
    ticks.push({
      atS: (Date.now() - started) / 1000 / s,
      ours: {
        accepted: stats.requests.total - stats.rateLimited - outAccepted - (outside?.failed ?? 0),
        limited: stats.rateLimited - outLimited,
      },
      outside: { accepted: outAccepted, limited: outLimited },
    });
    if (control === 'adaptive') {
      const atS = ticks[ticks.length - 1]!.atS;
      controller
        .query(grantedRateQuery)
        .then((view) => void granted.push({ atS, rate: view.rate }))
        .catch(() => undefined);
    }
  };
  try {
    const campaign = await launchCampaign(context, on, scale.subjects, { kind: 'auto' }, {}, `${control[0]}`);
    tick();
    const sampler = setInterval(tick, 1000 * s);
    if (scenario.outside) {
      const { fromS, toS } = scenario.outside;
      at(fromS, () => outside?.start());
      at(toS, () => void outside?.stop());
    }
    if (scenario.halveAtS !== undefined) {
      at(scenario.halveAtS, () =>
        sim.setOptions({ rateLimit: { requestsPerSecond: scaled(scale).rps / 2 } }),
      );
    }
    const log = setInterval(() => {
      const last = ticks[ticks.length - 1];
      if (last)
        process.stderr.write(
          `  ${scenario.name}/${control}: ${last.atS.toFixed(0)} s, ours ${last.ours.accepted} accepted ` +
            `${last.ours.limited} limited, outside ${last.outside.accepted}/${last.outside.limited}\n`,
        );
    }, 30_000);
    const ended = await Promise.race([
      campaign.result().then((summary) => ({ summary })),
      delay(scenario.untilS * 1000 * s).then(() => undefined),
    ]);
    clearInterval(sampler);
    clearInterval(log);
    tick();
    await outside?.stop();
    const progress = ended ? undefined : await campaign.progress().catch(() => undefined);
    if (!ended) {
      // Cancelled, the campaign ends with its summary; wait for it while the worker still runs.
      await campaign.cancel().catch(() => undefined);
      await Promise.race([campaign.result().catch(() => undefined), delay(120_000)]);
    }
    return {
      control,
      ticks,
      finished: ended !== undefined,
      done: ended
        ? ended.summary.subjects.filter((subject) => subject.status === 'DONE').length
        : (progress?.counts.done ?? 0),
      ...(ended ? { makespanS: (Date.now() - started) / 1000 / s } : {}),
      granted,
    };
  } finally {
    timers.forEach(clearTimeout);
    await outside?.stop();
    await on.worker.stop();
    await sim.stop();
  }
}

/** Counts between two full-scale times (the nearest ticks). */
function between(ticks: Tick[], fromS: number, toS: number) {
  const nearest = (t: number) =>
    ticks.reduce((best, tick) => (Math.abs(tick.atS - t) < Math.abs(best.atS - t) ? tick : best));
  const a = nearest(fromS);
  const b = nearest(Math.min(toS, ticks[ticks.length - 1]!.atS));
  const spanS = Math.max(1e-9, b.atS - a.atS);
  const ours = { accepted: b.ours.accepted - a.ours.accepted, limited: b.ours.limited - a.ours.limited };
  const outside = {
    accepted: b.outside.accepted - a.outside.accepted,
    limited: b.outside.limited - a.outside.limited,
  };
  return {
    spanS,
    fromS: a.atS,
    toS: b.atS,
    oursRps: ours.accepted / spanS,
    oursLimitedShare: ours.limited / Math.max(1, ours.accepted + ours.limited),
    outsideLimitedShare: outside.limited / Math.max(1, outside.accepted + outside.limited),
    ours,
    outside,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

function report(say: (line?: string) => void, scenario: Scenario, scale: Scale, runs: RunFigures[]): void {
  const R = scale.rps;
  for (const run of runs) {
    const last = run.ticks[run.ticks.length - 1]!;
    const whole = between(run.ticks, 0, last.atS);
    say(
      `### ${run.control === 'adaptive' ? 'adaptive (provider rate controller)' : 'baseline: fixed rate (PROVIDER_RATE_CONTROL=fixed)'}`,
    );
    say(
      `- campaign: ${run.finished ? `finished in ${run.makespanS!.toFixed(0)} s` : `stopped at ${last.atS.toFixed(0)} s`}, ${run.done} of ${scale.subjects} subjects done`,
    );
    say(
      `- our 429 share, whole run: ${pct(whole.oursLimitedShare)} (${whole.ours.limited} of ${whole.ours.accepted + whole.ours.limited}) — target ≤ 2%: ${verdict(whole.oursLimitedShare <= 0.02)}`,
    );
    if (scenario.outside) {
      const { fromS, toS, rps } = scenario.outside;
      const during = between(run.ticks, fromS, toS);
      const after = between(run.ticks, toS, toS + 60);
      const remaining = R - rps;
      say(
        `- outside client's 429 share: ${pct(during.outsideLimitedShare)} (${during.outside.limited} of ${during.outside.accepted + during.outside.limited}) — target ≤ 2%: ${verdict(during.outsideLimitedShare <= 0.02)}`,
      );
      say(
        `- our 429 share while it runs: ${pct(during.oursLimitedShare)}; our accepted rate while it runs (${during.fromS.toFixed(0)}–${during.toS.toFixed(0)} s): ${during.oursRps.toFixed(2)}/s = ${pct(during.oursRps / remaining)} of the remaining ${remaining}/s — target ≥ 85%: ${verdict(during.oursRps >= 0.85 * remaining)}`,
      );
      say(
        `- our accepted rate in the 60 s after it stops (${after.fromS.toFixed(0)}–${after.toS.toFixed(0)} s): ${after.oursRps.toFixed(2)}/s = ${pct(after.oursRps / R)} of R — target ≥ 90%: ${verdict(after.oursRps >= 0.9 * R)}`,
      );
    }
    if (scenario.halveAtS !== undefined) {
      const halved = R / 2;
      const firstMinute = between(run.ticks, scenario.halveAtS, scenario.halveAtS + 60);
      const afterwards = between(run.ticks, scenario.halveAtS, last.atS);
      const settled = between(run.ticks, scenario.halveAtS + 60, last.atS);
      say(
        `- our 429 share after the drop (${afterwards.fromS.toFixed(0)}–${afterwards.toS.toFixed(0)} s): ${pct(afterwards.oursLimitedShare)} (${afterwards.ours.limited} of ${afterwards.ours.accepted + afterwards.ours.limited}); in its first minute ${pct(firstMinute.oursLimitedShare)} — target ≤ 2%: ${verdict(afterwards.oursLimitedShare <= 0.02)}`,
      );
      say(
        `- our accepted rate after the drop: ${afterwards.oursRps.toFixed(2)}/s = ${pct(afterwards.oursRps / halved)} of the new ${halved}/s (first minute ${pct(firstMinute.oursRps / halved)}, after it ${pct(settled.oursRps / halved)}) — target ≥ 85%: ${verdict(afterwards.oursRps >= 0.85 * halved)}`,
      );
    }
    const profile = [];
    for (let t = 0; t + 30 <= last.atS; t += 30)
      profile.push(between(run.ticks, t, t + 30).oursRps.toFixed(1));
    say(`- our accepted requests/s per 30 s: ${profile.join(' ')}`);
    if (run.granted.length > 0) {
      const rates = [];
      for (let t = 0; t + 30 <= last.atS; t += 30) {
        const inPart = run.granted.filter((g) => g.atS >= t && g.atS < t + 30);
        const mean = inPart.reduce((sum, g) => sum + g.rate, 0) / Math.max(1, inPart.length);
        rates.push(inPart.length > 0 ? (mean * scale.timeScale).toFixed(1) : '-');
      }
      say(`- granted rate (the controller's, full-scale requests/s) per 30 s: ${rates.join(' ')}`);
    }
  }
  say();
}

async function main(): Promise<void> {
  const argv = process.argv;
  const scale: Scale = {
    subjects: numberArg(argv, 'subjects', 300),
    styles: catalogStyles(numberArg(argv, 'styles', 4)),
    trainingS: numberArg(argv, 'training', 90),
    generationS: numberArg(argv, 'generation', 20),
    rps: numberArg(argv, 'rps', 20),
    timeScale: numberArg(argv, 'time-scale', 1),
  };
  const untilS = numberArg(argv, 'until', 480);
  const i = argv.indexOf('--scenario');
  const names = (i >= 0 && argv[i + 1] ? argv[i + 1]! : 'shared,halved').split(',');
  const scenarios: Scenario[] = [];
  if (names.includes('shared'))
    scenarios.push({
      name: 'shared',
      outside: {
        rps: numberArg(argv, 'outside', 8),
        fromS: numberArg(argv, 'outside-from', 120),
        toS: numberArg(argv, 'outside-to', 360),
      },
      untilS,
    });
  if (names.includes('halved'))
    scenarios.push({ name: 'halved', halveAtS: numberArg(argv, 'halve-at', 180), untilS });

  const say = (line = '') => console.log(line);
  say(
    `Shared-quota benchmark: ${scale.subjects} subjects × ${scale.styles.length} styles, training ${scale.trainingS} s, ` +
      `generation ${scale.generationS} s, quota R = ${scale.rps}/s (the simulator answers 429 above it), ` +
      `PROVIDER_MAX_RPS = R, auto window; measured until ${untilS} s.`,
  );
  if (scale.timeScale !== 1)
    say(
      `TIME-SCALED ×${scale.timeScale}: durations ×${scale.timeScale}, rates ÷${scale.timeScale} (quota ` +
        `${scaled(scale).rps.toFixed(1)}/s of wall time); the controller's own timings are not scaled. ` +
        `Times below are full-scale seconds.`,
    );
  const context = await openContext(scale, say);
  const { stack } = context;
  try {
    for (const scenario of scenarios) {
      say(
        scenario.outside
          ? `## Shared quota: an outside client sends ${scenario.outside.rps}/s from ${scenario.outside.fromS} s to ${scenario.outside.toS} s`
          : `## Quota halved: ${scale.rps}/s → ${scale.rps / 2}/s at ${scenario.halveAtS} s, for good`,
      );
      say(`Load before: ${loadLine()}.`);
      // Both approaches at once, each on its own simulator, worker and task queues: the same machine load.
      const runs = await Promise.all(
        (['adaptive', 'fixed'] as const).map((control) => runOne(context, scenario, control)),
      );
      say(`Load after: ${loadLine()}.`);
      report(say, scenario, scale, runs);
    }
  } finally {
    await stack.close();
  }
}

if (require.main === module) {
  // A campaign stopped at the measurement's end may still have a result call retrying against the
  // closed connection; everything is printed by then.
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}

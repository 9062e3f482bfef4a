/**
 * Benchmark: campaigns against the provider simulator at the provider's real ratios (training
 * 90 s, generation 20 s, a quota of R requests/s answered with 429 above it), each figure beside
 * its baseline in the same run.
 *
 *   npm run bench:campaign                      (builds, then runs dist/bench/campaign.js)
 *   node dist/bench/campaign.js [--scenario quota,runs,fairness,priority] [--subjects 300]
 *     [--quota-approaches auto,fixed,naive]
 *     [--styles 2] [--training 90] [--generation 20] [--rps 20] [--time-scale 1] [--fixed 50]
 *     [--runs-subjects 1000] [--per-run 100] [--fair-big 300] [--fair-small 30] [--fair-later 30]
 *     [--priority-campaign 300] [--priority-after 60] [--baseline-subjects 1000]
 *     [--status-cli-every 30] [--scale-per-run N] [--write [--append]]
 *
 * Scenarios (bench/campaign-scenarios.ts):
 * - quota: N subjects under quota R: the auto window, a fixed window of 50 and a naive
 *   Promise.all over the provider client; accepted rate vs R, 429 share, makespan vs the bound
 *   (bench/campaign-scale.ts says how it and the ramp are computed), requests per subject vs the
 *   minimum.
 * - runs: 1,000 subjects with subjectsPerRun 100: in-flight count sampled every second across the
 *   continue-as-new boundaries.
 * - fairness: a 300-subject campaign, then a 30-subject one 30 s later on the same queue and
 *   quota; the small one's makespan beside its makespan alone.
 * - priority: an interactive pipeline started while a campaign saturates the quota (once the
 *   provider queue has a backlog, at least --priority-after s in), beside the same pipeline on an
 *   idle system, with the queue's backlog when it started and while it ran.
 * - scale (only when named): the same campaign at --baseline-subjects, then at --subjects (e.g.
 *   10,000): makespan vs 1.15 × (bound + ramp), the largest history of any run, the worker's peak
 *   RSS and CPU, `campaigns status` latency throughout (bench/campaign-at-scale.ts).
 * --time-scale s multiplies every duration and divides every rate (see campaign-scale.ts); the
 * output says so. --write records the output in bench/RESULTS.md (its campaign section);
 * --append adds it to that section instead of replacing it.
 */
import { recordCampaignSection } from './campaign-results';
import { bounds, catalogStyles, minimalRequestsPerSubject, scaled, type Scale } from './campaign-scale';
import { runAtScale } from './campaign-at-scale';
import { numberArg, stringArg } from './cli-args';
import { openContext, runFairness, runPriority, runQuota, runRunBoundaries } from './campaign-scenarios';

async function main(): Promise<void> {
  const argv = process.argv;
  const scale: Scale = {
    subjects: numberArg(argv, 'subjects', 300),
    styles: catalogStyles(numberArg(argv, 'styles', 2)),
    trainingS: numberArg(argv, 'training', 90),
    generationS: numberArg(argv, 'generation', 20),
    rps: numberArg(argv, 'rps', 20),
    timeScale: numberArg(argv, 'time-scale', 1),
  };
  const scenarios = stringArg(argv, 'scenario', 'quota,runs,fairness,priority').split(',');
  const fixed = numberArg(argv, 'fixed', 50);
  const wall = scaled(scale);
  const b = bounds(scale);
  const out: string[] = [];
  const say = (line = '') => {
    out.push(line);
    console.log(line);
  };
  say(
    `Campaign benchmark: ${scale.subjects} subjects × ${scale.styles.length} styles, training ${scale.trainingS} s, ` +
      `generation ${scale.generationS} s, quota R = ${scale.rps} requests/s (the simulator answers 429 above it; ` +
      `PROVIDER_MAX_RPS = R), the product's default polling.`,
  );
  if (scale.timeScale !== 1)
    say(
      `TIME-SCALED ×${scale.timeScale}: every duration (training ${wall.trainingMs / 1000} s, generation ` +
        `${wall.generationMs / 1000} s, polling, the window's backlog thresholds and sampling) is multiplied by ` +
        `${scale.timeScale} and the quota is ${wall.rps.toFixed(1)} requests/s of wall time. Times below are ` +
        `full-scale seconds (wall seconds ÷ ${scale.timeScale}); request counts are unaffected.`,
    );
  say(
    `Minimal requests per subject: ${minimalRequestsPerSubject(scale.styles.length)}. Quota bound ` +
      `max(N × minimal / R, one subject's ${b.subjectS} s) = ${b.quotaBoundS.toFixed(0)} s; ramp ${b.rampS.toFixed(0)} s ` +
      `(an ideal scheduler's makespan, ${b.targetBaseS.toFixed(0)} s, minus the bound: it knows every duration, ` +
      `makes only the minimal requests and has no window, yet the quota idles until the first trainings end ` +
      `and while the last generations run). Steady rate: accepted requests/s from the end of the warm-up (one ` +
      `subject's ${b.subjectS} s: until then only start-up work exists) to 90% of the run (then the tail); the ideal ` +
      `scheduler's is ${(b.idealSteadyShare * 100).toFixed(1)}% of R, and ${(b.idealMiddleShare * 100).toFixed(1)}% over ` +
      `10–90% of its run, warm-up included.`,
  );
  say();

  const context = await openContext(scale, say);
  const { stack } = context;
  try {
    if (scenarios.includes('quota'))
      await runQuota(context, fixed, stringArg(argv, 'quota-approaches', 'auto,fixed,naive').split(','));
    if (scenarios.includes('runs'))
      await runRunBoundaries(
        context,
        numberArg(argv, 'runs-subjects', 1000),
        numberArg(argv, 'per-run', 100),
      );
    if (scenarios.includes('fairness'))
      await runFairness(
        context,
        numberArg(argv, 'fair-big', 300),
        numberArg(argv, 'fair-small', 30),
        numberArg(argv, 'fair-later', 30),
      );
    if (scenarios.includes('priority'))
      await runPriority(
        context,
        numberArg(argv, 'priority-campaign', 300),
        numberArg(argv, 'priority-after', 60),
      );
    if (scenarios.includes('scale'))
      await runAtScale(context, numberArg(argv, 'baseline-subjects', 1000), {
        cliEveryS: numberArg(argv, 'status-cli-every', 30),
        ...(argv.includes('--scale-per-run')
          ? { subjectsPerRun: numberArg(argv, 'scale-per-run', 400) }
          : {}),
      });
  } finally {
    await stack.close();
  }
  if (argv.includes('--write')) {
    const file = recordCampaignSection(
      out,
      ['node dist/bench/campaign.js', ...argv.slice(2)],
      argv.includes('--append'),
    );
    console.log(`\nWritten to ${file}.`);
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * Benchmark: `avatar-pipeline campaigns status <id>` as an operator runs it, a process of its own
 * from start to exit, while a campaign runs (one worker, the simulator at the provider's ratios),
 * beside the same command of another build (--baseline-bin, e.g. a copy of the commit before a
 * change, built) in the same run. The two builds take turns, so load falls on both alike.
 * `--help` is timed too: it loads every command's modules.
 *
 *   npm run build && node dist/bench/cli-status.js --baseline-bin <checkout>/bin/avatar-pipeline.js
 *        [--baseline-label "before, bf54ebe"] [--samples 15] [--subjects 200]
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { numberArg, stringArg } from './cli-args';
import { cliStatus, percentile } from './campaign-at-scale';
import { catalogStyles, type Scale } from './campaign-scale';
import {
  launchCampaign,
  loadLine,
  markdownTable,
  openContext,
  simulatorOptions,
  startCampaignWorker,
} from './campaign-scenarios';
import { freshSimulator, OWN_BIN } from './campaign-stack';
import { runCli } from './cli-process';

const TARGET_MS = 1_000;

interface Build {
  label: string;
  bin: string;
  status: number[];
  help: number[];
}

async function main(): Promise<void> {
  const argv = process.argv;
  const baselineBin = stringArg(argv, 'baseline-bin');
  if (!baselineBin) throw new Error('--baseline-bin <checkout>/bin/avatar-pipeline.js is required');
  const samples = numberArg(argv, 'samples', 15);
  const scale: Scale = {
    subjects: numberArg(argv, 'subjects', 200),
    styles: catalogStyles(2),
    trainingS: 90,
    generationS: 20,
    rps: 20,
    timeScale: 1,
  };
  const builds: Build[] = [
    { label: 'this build', bin: OWN_BIN, status: [], help: [] },
    {
      label: stringArg(argv, 'baseline-label') ?? 'baseline',
      bin: path.resolve(baselineBin),
      status: [],
      help: [],
    },
  ];
  const context = await openContext(scale, (line = '') => console.log(line));
  try {
    const sim = await freshSimulator(simulatorOptions(scale));
    const on = await startCampaignWorker(context, sim);
    try {
      const campaign = await launchCampaign(context, on, scale.subjects, { kind: 'auto' });
      // The memo's progress appears with the campaign's first workflow task.
      while (
        !(await campaign.progress().then(
          () => true,
          () => false,
        ))
      )
        await delay(500);
      console.error(`campaign ${campaign.campaignId} running; ${loadLine()}`);
      for (let i = 0; i < samples; i++) {
        const order = i % 2 === 0 ? builds : [...builds].reverse();
        for (const build of order) {
          build.status.push(await timed(() => cliStatus(context, campaign.campaignId, build.bin)));
          build.help.push(await timed(() => runCli(build.bin, ['--help'])));
        }
      }
      const progress = await campaign.progress();
      console.error(`sampled while the campaign ran: ${progress.state}; ${loadLine()}`);
      await campaign.cancel();
    } finally {
      await on.worker.stop();
      await sim.stop();
    }
  } finally {
    await context.stack.close();
  }
  const figures = (ms: number[]) =>
    `${percentile(ms, 0.5).toFixed(0)} / ${Math.max(...ms).toFixed(0)} ms (${ms.filter((x) => x >= TARGET_MS).length} of ${ms.length} ≥ ${TARGET_MS} ms)`;
  console.log(
    `\n\`campaigns status\` as a process, start to exit, while a ${scale.subjects}-subject campaign runs on one worker ` +
      `(the builds take turns, ${samples} samples each):\n`,
  );
  console.log(
    markdownTable(
      builds.map((b) => ({
        build: b.label,
        'campaigns status, p50 / max': figures(b.status),
        '--help, p50 / max': figures(b.help),
      })),
    ),
  );
}

async function timed(run: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

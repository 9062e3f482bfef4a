import { setTimeout as delay } from 'node:timers/promises';
import { SeededRandom } from '../../../src/simulator/seeded-random';
import { ChaosStage } from '../harness/chaos-stage';
import type { ChaosSize } from '../harness/chaos-size';
import { describeProviderLoad, expectExactCounts, expectMeterMatches } from '../harness/exact-counts';
import { reported, ScenarioReport } from '../harness/scenario-report';

export interface WorkerKillsOptions {
  /** Default size.workerKills. */
  kills?: number;
  /** Seeds the kill moments, so a failing run can be replayed. */
  seed?: number;
}

/**
 * Scenario 1: the only worker process is SIGKILLed `kills` times, each at a random moment
 * (seeded) after it came up, and started again at once. Every kill must land while the campaign
 * runs. All subjects finish, with exact counts at the provider.
 */
export async function workerKillsScenario(size: ChaosSize, options: WorkerKillsOptions = {}): Promise<void> {
  const kills = options.kills ?? size.workerKills;
  const seed = options.seed ?? 1_234;
  const report = new ScenarioReport(`worker SIGKILLed ${kills} times (seed ${seed})`, size.label);
  const stage = await ChaosStage.open({ name: 'worker-kills', size });
  try {
    await reported(report, async () => {
      const random = new SeededRandom(seed);
      let worker = await stage.startWorker();
      const campaign = await stage.startCampaign();
      report.note(`campaign ${campaign.campaignId} started, worker ${worker.pid}`);
      for (let k = 1; k <= kills; k++) {
        const { min, max } = size.killAfterMs;
        await delay(Math.round(min + random.next() * (max - min)));
        const stats = stage.provider.stats();
        // A kill after the end would prove nothing.
        expect({ kill: k, running: await stage.campaignRunning(campaign) }).toEqual({
          kill: k,
          running: true,
        });
        await stage.killWorker(worker);
        report.note(
          `kill ${k}: worker ${worker.pid} SIGKILLed; provider so far: ${stats.totals.modelsCreated} models, ` +
            `${stats.totals.uploads} uploads, ${stats.orders.filter((o) => o.status === 'DONE').length} orders done`,
        );
        worker = await stage.startWorker();
      }
      const summary = await stage.campaignSummary(campaign, size.scenarioTimeoutMs);
      report.note(`campaign ended: ${summary.succeeded}/${summary.total} succeeded`);
      // The meter is a workflow: asked while a worker still runs.
      const usage = await stage.meterUsage(stage.provider.stats().totals.runs);
      report.note(`meter: ${usage.spent} credits`);
      expect(await stage.stopWorker(worker)).toBe(0);
      const stats = stage.provider.stats();
      report.note(`provider: ${describeProviderLoad(stats)}`);
      expectExactCounts(summary, stats, size);
      expectMeterMatches(usage, campaign.campaignId, stats);
    });
  } finally {
    await stage.close();
  }
}

import { setTimeout as delay } from 'node:timers/promises';
import { ChaosStage } from '../harness/chaos-stage';
import type { ChaosSize } from '../harness/chaos-size';
import { describeProviderLoad, expectExactCounts } from '../harness/exact-counts';
import { reported, ScenarioReport } from '../harness/scenario-report';
import { waitFor } from '../../helpers/worker-process';

export interface ProviderOutageOptions {
  /** How long the provider stays down; default size.outageMs (60 s in the full suite). */
  outageMs?: number;
}

/**
 * Scenario 4: the provider goes down in mid-training — the simulator stops (port closed, open
 * connections cut) — and comes back on the same port with its state file after `outageMs`.
 * Pipelines must wait it out (no subject fails meanwhile) and then finish with exact counts.
 */
export async function providerOutageScenario(
  size: ChaosSize,
  options: ProviderOutageOptions = {},
): Promise<void> {
  const outageMs = options.outageMs ?? size.outageMs;
  const report = new ScenarioReport(`provider down for ${outageMs / 1000} s in mid-training`, size.label);
  const stage = await ChaosStage.open({ name: 'provider-outage', size });
  try {
    await reported(report, async () => {
      const worker = await stage.startWorker();
      const campaign = await stage.startCampaign();
      report.note(`campaign ${campaign.campaignId} started, worker ${worker.pid}`);
      // Mid-training: a full window of models is training, and more subjects wait to start.
      await waitFor(
        'a window of models in training',
        () =>
          stage.provider
            .stats()
            .orders.filter((o) => o.kind === 'model' && o.status !== 'CREATED' && o.status !== 'DONE')
            .length >= Math.min(size.maxInFlight, size.subjects),
        size.scenarioTimeoutMs,
      );
      const before = stage.provider.stats();
      const training = before.orders.filter(
        (o) => o.kind === 'model' && o.status !== 'CREATED' && o.status !== 'DONE',
      );
      await stage.provider.stop();
      report.note(
        `provider stopped: ${training.length} models training, ${before.totals.modelsCreated}/${size.subjects} models created`,
      );
      await delay(outageMs);
      // Waited, not failed: the campaign is still running and has lost no subject.
      const progress = await campaign.progress();
      expect({
        running: await stage.campaignRunning(campaign),
        failed: progress.counts.failed + progress.counts.partial,
      }).toEqual({
        running: true,
        failed: 0,
      });
      await stage.provider.restart();
      report.note(
        `provider back after ${outageMs} ms; campaign counts then ${JSON.stringify(progress.counts)}`,
      );
      const summary = await stage.campaignSummary(campaign, size.scenarioTimeoutMs);
      report.note(`campaign ended: ${summary.succeeded}/${summary.total} succeeded`);
      expect(await stage.stopWorker(worker)).toBe(0);
      const stats = stage.provider.stats();
      report.note(`provider: ${describeProviderLoad(stats)}`);
      // The models that were training when the provider went down are the ones the subjects finished with.
      const finalModels = new Set(summary.subjects.map((s) => s.modelId));
      expect(training.filter((model) => !finalModels.has(model.id))).toEqual([]);
      expectExactCounts(summary, stats, size);
    });
  } finally {
    await stage.close();
  }
}

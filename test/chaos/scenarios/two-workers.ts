import { findFreePorts } from '../../../dev/devserver';
import { PROVIDER_METRICS } from '../../../src/worker/provider-call-observer';
import { ChaosStage } from '../harness/chaos-stage';
import type { ChaosSize } from '../harness/chaos-size';
import { describeProviderLoad, expectExactCounts } from '../harness/exact-counts';
import { reported, ScenarioReport } from '../harness/scenario-report';
import { parsePrometheusText, sumOf } from '../../helpers/prometheus-text';

/**
 * Scenario 5: two worker processes poll the same pipeline and provider task queues and share one
 * campaign, with lost answers and 5xx on top, so both reconcile writes while the other is working
 * next to them. Each must have done a share of the provider calls (their metrics add up to what
 * the provider saw), and the campaign ends with exact counts.
 */
export async function twoWorkersScenario(size: ChaosSize): Promise<void> {
  const report = new ScenarioReport('two worker processes on one campaign', size.label);
  const stage = await ChaosStage.open({
    name: 'two-workers',
    size,
    provider: { loseResponseRate: 0.05, fail5xxRate: 0.05, seed: 5_005 },
    // The simulator performs a write before it loses the answer and never one it answers 5xx, so
    // nothing is still on its way when a write fails here: a short settle keeps the scenario's time.
    workerEnv: { PROVIDER_WRITE_SETTLE_MS: '2000' },
  });
  try {
    await reported(report, async () => {
      const ports = await findFreePorts(2);
      const workers = await Promise.all(
        ports.map((port) => stage.startWorker({ METRICS_BIND_ADDRESS: `127.0.0.1:${port}` })),
      );
      const campaign = await stage.startCampaign();
      report.note(
        `campaign ${campaign.campaignId} started, workers ${workers.map((w) => w.pid).join(' and ')}`,
      );
      const summary = await stage.campaignSummary(campaign, size.scenarioTimeoutMs);
      report.note(`campaign ended: ${summary.succeeded}/${summary.total} succeeded`);

      const requests = await Promise.all(
        ports.map(async (port) => {
          const res = await fetch(`http://127.0.0.1:${port}/metrics`);
          return sumOf(parsePrometheusText(await res.text()), PROVIDER_METRICS.requests);
        }),
      );
      expect(await Promise.all(workers.map((w) => stage.stopWorker(w)))).toEqual([0, 0]);
      const stats = stage.provider.stats();
      report.note(`provider: ${describeProviderLoad(stats)}; requests per worker: ${requests.join(' + ')}`);
      // Both did real work, and between them every request the provider saw.
      expect(requests.every((n) => n > 0)).toBe(true);
      expect(requests[0]! + requests[1]!).toBe(stats.requests.total);
      expectExactCounts(summary, stats, size);
    });
  } finally {
    await stage.close();
  }
}

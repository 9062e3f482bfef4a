import { setTimeout as delay } from 'node:timers/promises';
import { ChaosStage } from '../harness/chaos-stage';
import type { ChaosSize } from '../harness/chaos-size';
import { describeProviderLoad, expectExactCounts, expectMeterMatches } from '../harness/exact-counts';
import { reported, ScenarioReport } from '../harness/scenario-report';

/**
 * The client's timeout per provider request in this scenario, and how late a slow answer comes: a
 * slow write is performed 3 s after the client gave up on it. The workers wait PROVIDER_WRITE_SETTLE_MS
 * before reconciling a timed-out write (the product's default is 60 s; 8 s covers these 3 s with room).
 */
const CLIENT_TIMEOUT_MS = 2_000;
const SLOW_MS = 5_000;
const WRITE_SETTLE_MS = 8_000;

/** 429 bursts: the provider's quota drops to a trickle for `burstMs`, every `everyMs`. */
const RATE_LIMIT_BURSTS = {
  everyMs: 8_000,
  burstMs: 3_000,
  limit: { requestsPerSecond: 2, burst: 2, retryAfterSeconds: 1 },
};

/**
 * Scenario 3: every provider fault at once — 5xx answers, writes committed whose answer is lost,
 * truncated JSON, answers slower than the client's timeout (PROVIDER_TIMEOUT_MS), and bursts of 429.
 * Every kind of fault must have happened, and the campaign must still end with exact counts:
 * no second model, order, upload or run anywhere.
 */
export async function providerChaosScenario(size: ChaosSize): Promise<void> {
  const rates = size.providerFaults;
  const report = new ScenarioReport(
    `provider chaos: 5xx ${rates.fail5xxRate}, lost ${rates.loseResponseRate}, malformed ${rates.malformedJsonRate}, ` +
      `slow ${rates.slowRate} (${SLOW_MS} ms > ${CLIENT_TIMEOUT_MS} ms timeout), 429 bursts`,
    size.label,
  );
  const stage = await ChaosStage.open({
    name: 'provider-chaos',
    size,
    provider: { ...rates, slowMs: SLOW_MS, seed: 3_003 },
    workerEnv: {
      PROVIDER_TIMEOUT_MS: String(CLIENT_TIMEOUT_MS),
      PROVIDER_WRITE_SETTLE_MS: String(WRITE_SETTLE_MS),
    },
  });
  const bursts = { stopped: false, count: 0 };
  try {
    await reported(report, async () => {
      const worker = await stage.startWorker();
      const campaign = await stage.startCampaign();
      report.note(`campaign ${campaign.campaignId} started, worker ${worker.pid}`);
      const bursting = (async () => {
        while (!bursts.stopped) {
          await delay(RATE_LIMIT_BURSTS.everyMs - RATE_LIMIT_BURSTS.burstMs);
          if (bursts.stopped) break;
          stage.provider.setOptions({ rateLimit: RATE_LIMIT_BURSTS.limit });
          bursts.count++;
          await delay(RATE_LIMIT_BURSTS.burstMs);
          stage.provider.setOptions({ rateLimit: null });
        }
      })();
      const summary = await stage.campaignSummary(campaign, size.scenarioTimeoutMs).finally(() => {
        bursts.stopped = true;
      });
      await bursting;
      report.note(
        `campaign ended: ${summary.succeeded}/${summary.total} succeeded after ${bursts.count} 429 bursts`,
      );
      // The meter is a workflow: asked while a worker still runs.
      const usage = await stage.meterUsage(stage.provider.stats().totals.runs);
      report.note(`meter: ${usage.spent} credits`);
      expect(await stage.stopWorker(worker)).toBe(0);
      const stats = stage.provider.stats();
      report.note(`provider: ${describeProviderLoad(stats)}`);
      // Every fault really happened.
      expect({
        serverErrors: stats.faults.serverErrors > 0,
        lostResponses: stats.faults.lostResponses > 0,
        malformedJson: stats.faults.malformedJson > 0,
        slowResponses: stats.faults.slowResponses > 0,
        rateLimited: stats.rateLimited > 0,
      }).toEqual({
        serverErrors: true,
        lostResponses: true,
        malformedJson: true,
        slowResponses: true,
        rateLimited: true,
      });
      expectExactCounts(summary, stats, size);
      expectMeterMatches(usage, campaign.campaignId, stats);
    });
  } finally {
    bursts.stopped = true;
    await stage.close();
  }
}

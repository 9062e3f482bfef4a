import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createProviderActivities, type ProviderActivities } from '../../../activities/provider-activities';
import type { WriteRefused, WriteSettled } from '../../../activities/provider-write-attempt';
import type { StatusReport } from '../../../src/contracts/provider-activity-results';
import { activityFailureInterceptor } from '../../../activities/provider-failure';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { modelWithSelfie } from '../../helpers/model-with-selfie';
import { quietLogger } from '../../helpers/quiet-logger';

/**
 * A write the provider refused with a 429 was not performed, so the attempt after it writes at once
 * instead of looking for it first: under a saturated quota a look and a write sent back to back
 * get the write refused again and again. Any other attempt still looks first.
 */
describe('provider writes refused with a 429', () => {
  let sim: RunningSimulator;
  let setup: ProviderClient;
  let activities: ProviderActivities;

  beforeEach(async () => {
    sim = await startSimulator({ progression: { mode: 'calls' } });
    setup = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 });
    activities = createProviderActivities({
      provider: new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 }),
      imageAccess: { roots: [], urlHosts: [] },
      providerScope: 'unit',
    });
  });
  afterEach(() => sim.stop());

  /** An attempt, with the heartbeat details the server hands it and the ones it records. */
  function attempt(n: number, heartbeatDetails?: unknown) {
    const env = new MockActivityEnvironment(
      { attempt: n, heartbeatDetails },
      { logger: quietLogger, interceptors: [activityFailureInterceptor] },
    );
    const heartbeats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => heartbeats.push(details));
    return { env, heartbeats };
  }

  /** The provider's quota is spent: one request answered, every later one refused with a 429. */
  async function spendQuota(): Promise<void> {
    sim.setOptions({ rateLimit: { requestsPerSecond: 0.001, burst: 1 } });
    await setup.listModels();
  }

  const requestsTo = (endpoint: string) => sim.stats().requests.byEndpoint[endpoint] ?? 0;

  async function trainedModel(): Promise<number> {
    const modelId = await modelWithSelfie(setup);
    await setup.runOrder(modelId);
    // Progression 'calls': each status call moves the training on.
    for (let i = 0; i < 100 && (await setup.getOrderStatus(modelId)).status !== 'DONE'; i++);
    return modelId;
  }

  it('a run refused with a 429 leaves the mark, and the next attempt runs without looking first', async () => {
    const orderId = await modelWithSelfie(setup);
    await spendQuota();
    const first = attempt(3, { writeRefusedInAttempt: 2 } satisfies WriteRefused);
    const failure: unknown = await first.env.run(activities.runOrder, { orderId }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'Provider:rate-limited' });
    expect(first.heartbeats).toEqual([{ writeRefusedInAttempt: 3 }]);

    sim.setOptions({ rateLimit: null });
    const looksBefore = requestsTo('getOrderStatus');
    const next = attempt(4, first.heartbeats[0]);
    const report: StatusReport = await next.env.run(activities.runOrder, { orderId });
    expect(report.status).not.toBe('CREATED');
    expect(requestsTo('getOrderStatus')).toBe(looksBefore);
    expect(sim.stats().orders.find((o) => o.id === orderId)).toMatchObject({ runs: 1 });
  });

  it('a create refused with a 429 is sent again at once by the next attempt', async () => {
    const modelId = await trainedModel();
    await spendQuota();
    const input = { modelId, styleId: 5, gender: 1 as const };
    const first = attempt(1);
    await expect(first.env.run(activities.createGenerationOrder, input)).rejects.toMatchObject({
      type: 'Provider:rate-limited',
    });
    expect(first.heartbeats).toEqual([{ writeRefusedInAttempt: 1 }]);

    sim.setOptions({ rateLimit: null });
    const next: { reconciled: boolean } = await attempt(2, first.heartbeats[0]).env.run(
      activities.createGenerationOrder,
      input,
    );
    expect(next.reconciled).toBe(false);
    expect(requestsTo('listModelOrders')).toBe(0);
    expect(sim.stats().totals.generationOrdersCreated).toBe(1);
  });

  it('a refused look leaves no refusal mark, and a mark older than the attempt before is not trusted', async () => {
    const orderId = await modelWithSelfie(setup);
    await spendQuota();
    // The look is refused: nothing is known about earlier attempts' writes, so the next attempt
    // looks again; they had settled before this attempt started, and it sent nothing.
    const refusedLook = attempt(2, { writeSettledInAttempt: 1 } satisfies WriteSettled);
    await expect(refusedLook.env.run(activities.runOrder, { orderId })).rejects.toMatchObject({
      type: 'Provider:rate-limited',
    });
    expect(refusedLook.heartbeats).toEqual([{ writeSettledInAttempt: 2 }]);

    // A mark from attempt 3 says nothing of attempt 4: attempt 5 sends nothing and waits for it to settle.
    sim.setOptions({ rateLimit: null });
    const requestsBefore = sim.stats().requests.total;
    await expect(
      attempt(5, { writeRefusedInAttempt: 3 } satisfies WriteRefused).env.run(activities.runOrder, {
        orderId,
      }),
    ).rejects.toMatchObject({ type: 'SettlingRetry' });
    expect(sim.stats().requests.total).toBe(requestsBefore);
  });

  it('a write that failed otherwise (5xx) leaves no refusal mark: its retry waits, then looks', async () => {
    const orderId = await modelWithSelfie(setup);
    sim.setOptions({ fail5xxRate: 1, faultEndpoints: ['runOrder'] });
    const first = attempt(1);
    await expect(first.env.run(activities.runOrder, { orderId })).rejects.toMatchObject({
      type: 'Provider:unavailable',
    });
    expect(first.heartbeats).toEqual([{ writeSettledInAttempt: 1 }]);
  });
});

import { createServer, type AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createProviderActivities, type ProviderActivities } from '../../../activities/provider-activities';
import type { StatusReport } from '../../../src/contracts/provider-activity-results';
import { activityFailureInterceptor } from '../../../activities/provider-failure';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { ProviderTimeoutError, ProviderUnavailableError } from '@avatar-pipeline/client/provider/errors';
import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { modelWithSelfie } from '../../helpers/model-with-selfie';
import { quietLogger } from '../../helpers/quiet-logger';

/**
 * A write whose answer times out may still be performed by the provider after the client gave up
 * (the simulator's slow answers wait before performing). Its retry must not look for it at once,
 * find nothing and write again: the failure asks Temporal to wait PROVIDER_WRITE_SETTLE_MS first.
 */
describe('provider writes that time out', () => {
  const TIMEOUT_MS = 150;
  const LATE_MS = 400;
  const SETTLE_MS = 1_000;
  /** The mark of a first attempt that ended asking for its retry to wait the settle time. */
  const SETTLED_1 = { writeSettledInAttempt: 1 };
  let sim: RunningSimulator;
  let provider: ProviderClient;
  /** For the test's own set-up calls: a loaded machine must not time them out. */
  let setup: ProviderClient;
  let activities: ProviderActivities;

  beforeEach(async () => {
    sim = await startSimulator({ progression: { mode: 'calls' }, slowMs: LATE_MS });
    provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: TIMEOUT_MS });
    setup = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 });
    activities = createProviderActivities({
      provider,
      imageAccess: { roots: [], urlHosts: [] },
      providerScope: 'unit',
      writeSettleMs: SETTLE_MS,
      providerTimeoutMs: TIMEOUT_MS,
    });
  });
  afterEach(() => sim.stop());

  const attempt = (n: number, heartbeatDetails?: unknown) =>
    new MockActivityEnvironment(
      { attempt: n, heartbeatDetails },
      { logger: quietLogger, interceptors: [activityFailureInterceptor] },
    );
  const failureOf = (run: Promise<unknown>) =>
    run.then(
      () => {
        throw new Error('expected the attempt to fail');
      },
      (err: unknown) => {
        if (!(err instanceof ApplicationFailure)) throw err;
        return err;
      },
    );

  it('the transport reports a timeout as ProviderTimeoutError, still of kind unavailable', async () => {
    sim.setOptions({ slowRate: 1 });
    const err = await provider.listModels().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderTimeoutError);
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect((err as ProviderTimeoutError).kind).toBe('unavailable');
  });

  it('a timed-out run is retried only after the settle time, and the retry finds the late run', async () => {
    const modelId = await modelWithSelfie(setup);
    sim.setOptions({ slowRate: 1, faultEndpoints: ['runOrder'] });
    const failure = await failureOf(attempt(1).run(activities.runOrder, { orderId: modelId }));
    expect(failure).toMatchObject({
      type: 'Provider:unavailable',
      nonRetryable: false,
      nextRetryDelay: SETTLE_MS,
    });
    expect(failure.message).toMatch(/no answer within 150 ms.*retry waits 1000 ms/);

    // Within the settle time the provider performs the run the client gave up on.
    await delay(LATE_MS + 100);
    sim.setOptions({ slowRate: 0 });
    const report: StatusReport = await attempt(2, SETTLED_1).run(activities.runOrder, { orderId: modelId });
    expect(report.status).not.toBe('CREATED');
    const model = sim.stats().orders.find((o) => o.id === modelId);
    expect(model).toMatchObject({ runs: 1, runAttempts: 1 });
  });

  it('a timed-out create is retried after the settle time and finds the late model', async () => {
    sim.setOptions({ slowRate: 1, faultEndpoints: ['createModel'] });
    const input = { styles: [5], gender: 1 as const };
    const failure = await failureOf(attempt(1).run(activities.createModel, input));
    expect(failure.nextRetryDelay).toBe(SETTLE_MS);

    await delay(LATE_MS + 100);
    const outcome: Awaited<ReturnType<ProviderActivities['createModel']>> = await attempt(2, SETTLED_1).run(
      activities.createModel,
      input,
    );
    expect(outcome.created).toBeUndefined();
    expect(outcome.candidates.map((c) => c.modelId)).toEqual([sim.stats().orders[0]?.id]);
    expect(sim.stats().totals.modelsCreated).toBe(1);
  });

  it('a write answered with a 5xx (a gateway may have passed it on) is retried only after the settle time', async () => {
    const modelId = await modelWithSelfie(setup);
    sim.setOptions({ fail5xxRate: 1, faultEndpoints: ['runOrder'] });
    const failure = await failureOf(attempt(1).run(activities.runOrder, { orderId: modelId }));
    expect(failure).toMatchObject({ type: 'Provider:unavailable', nextRetryDelay: SETTLE_MS });
    expect(failure.message).toMatch(/HTTP 5\d\d/);
  });

  it('a write whose connection is cut after sending is retried only after the settle time', async () => {
    const modelId = await modelWithSelfie(setup);
    sim.setOptions({ loseResponseRate: 1, faultEndpoints: ['runOrder'] });
    const failure = await failureOf(attempt(1).run(activities.runOrder, { orderId: modelId }));
    expect(failure).toMatchObject({ type: 'Provider:unavailable', nextRetryDelay: SETTLE_MS });
  });

  it('a write that never left this host (connection refused) keeps the usual backoff and the refusal mark', async () => {
    const closedPort = await portNobodyListensOn();
    const closed = new ProviderClient({
      baseUrl: `http://127.0.0.1:${closedPort}`,
      apiKey: 'sim-key',
      timeoutMs: 5_000,
    });
    const offline = createProviderActivities({
      provider: closed,
      imageAccess: { roots: [], urlHosts: [] },
      providerScope: 'unit',
      writeSettleMs: SETTLE_MS,
    });
    const env = attempt(1);
    const heartbeats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => heartbeats.push(details));
    const failure = await failureOf(env.run(offline.runOrder, { orderId: 1 }));
    expect(failure).toMatchObject({ type: 'Provider:unavailable', nextRetryDelay: undefined });
    expect(heartbeats).toEqual([{ writeRefusedInAttempt: 1 }]);
  });

  it('an attempt after one that left no mark (the server timed it out, its worker died) sends nothing and waits PROVIDER_TIMEOUT_MS plus the settle time', async () => {
    const modelId = await modelWithSelfie(setup);
    const requestsBefore = sim.stats().requests.total;
    const env = attempt(2);
    const heartbeats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => heartbeats.push(details));
    const failure = await failureOf(env.run(activities.runOrder, { orderId: modelId }));
    expect(failure).toMatchObject({ type: 'SettlingRetry', nextRetryDelay: TIMEOUT_MS + SETTLE_MS });
    expect(heartbeats).toEqual([{ writeSettledInAttempt: 2 }]);
    expect(sim.stats().requests.total).toBe(requestsBefore);
  });

  it('a timed-out read keeps the usual backoff', async () => {
    const modelId = await modelWithSelfie(setup);
    sim.setOptions({ slowRate: 1, faultEndpoints: ['getOrderStatus'] });
    const slowRead = await failureOf(attempt(1).run(activities.getOrderStatus, { orderId: modelId }));
    expect(slowRead).toMatchObject({ type: 'Provider:unavailable', nextRetryDelay: undefined });
  });
});

/** A loopback port that was just free: a server is bound to it and closed again. */
async function portNobodyListensOn(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createProviderActivities } from '../../activities/provider-activities';
import { withActivityFailures } from '../../activities/provider-failure';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { modelWithSelfie } from '../helpers/model-with-selfie';
import { createDevServerEnv, uniqueName } from '../helpers/temporal-env';
import { runOrderWorkflow } from '../stand-in-workflows/refused-write-workflows';

/**
 * The mark a write refused with a 429 leaves for the next attempt travels in the activity's
 * heartbeat details: through the SDK and the server, not only through the activity's own code
 * (test/unit/activities/refused-writes.test.ts). A quota of one request per 10 s, spent just
 * before the run: attempt 1's run is refused (the 10 s leave a loaded machine time to start the
 * workflow), and attempt 2, 10 s later, has one request's worth of quota. With the mark it runs at
 * once and succeeds; a look first would spend that quota and get the run refused again.
 */
describe('a run refused with a 429, retried by Temporal', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;

  beforeAll(async () => {
    env = await createDevServerEnv();
    sim = await startSimulator({ progression: { mode: 'calls' } });
  });
  afterAll(async () => {
    await sim?.stop();
    await env?.teardown();
  });

  it('is sent again by the next attempt without a look first', async () => {
    const setup = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 });
    const orderId = await modelWithSelfie(setup);

    const taskQueue = uniqueName('refused-write');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue,
      workflowsPath: require.resolve('../stand-in-workflows/refused-write-workflows'),
      // As the product's workers do: a 429 becomes a failure retried after its Retry-After.
      interceptors: withActivityFailures(),
      activities: createProviderActivities({
        provider: new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 }),
        imageAccess: { roots: [], urlHosts: [] },
        providerScope: 'refused-write-test',
      }),
    });
    const report = await worker.runUntil(async () => {
      sim.setOptions({ rateLimit: { requestsPerSecond: 0.1, burst: 1, retryAfterSeconds: 10 } });
      await setup.listModels();
      const before = sim.stats().requests.byEndpoint;
      const result = await env.client.workflow.execute(runOrderWorkflow, {
        taskQueue,
        workflowId: uniqueName('refused-write'),
        args: [orderId],
      });
      const after = sim.stats().requests.byEndpoint;
      const during = (endpoint: string) => (after[endpoint] ?? 0) - (before[endpoint] ?? 0);
      expect({ runs: during('runOrder'), looks: during('getOrderStatus') }).toEqual({ runs: 2, looks: 0 });
      return result;
    });
    expect(report.status).not.toBe('CREATED');
    expect(sim.stats().orders.find((o) => o.id === orderId)).toMatchObject({ runs: 1 });
  }, 60_000);
});

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createProviderActivities } from '../../activities/provider-activities';
import { withActivityFailures } from '../../activities/provider-failure';
import {
  UPLOAD_HEARTBEAT_TIMEOUT_MS,
  UPLOAD_START_TO_CLOSE_MS,
} from '@avatar-pipeline/client/contracts/activity-timeouts';
import type { EndpointName } from '@avatar-pipeline/client/provider/endpoints';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { PROVIDER_WORKER_HEARTBEATS } from '../../src/worker/provider-heartbeats';
import { tinyPng } from '../fixtures/images';
import { modelWithSelfie } from '../helpers/model-with-selfie';
import { temporaryDirectory } from '../helpers/temp-dir';
import { createDevServerEnv, uniqueName } from '../helpers/temporal-env';
import {
  createOrderWorkflow,
  uploadSelfieWorkflow,
  type WriteTimeouts,
} from '../stand-in-workflows/settling-write-workflows';

/**
 * A provider write still on its way when its attempt ends must not be sent again by the retry:
 * the simulator holds each slow write (slowMs) and then performs it, whether or not the client is
 * still waiting. Timeouts are scaled down from the product's where a case would otherwise take
 * minutes, all of them together.
 */
describe('a write retried while the provider still holds the first one', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let setup: ProviderClient;
  const images = temporaryDirectory('settling-write-');

  beforeAll(async () => {
    env = await createDevServerEnv();
    sim = await startSimulator({ progression: { mode: 'calls' } });
    setup = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 });
  });
  afterAll(async () => {
    await sim?.stop();
    await env?.teardown();
  });
  afterEach(() => sim.setOptions({ slowRate: 0, faultEndpoints: null }));

  async function trainedModel(): Promise<number> {
    const modelId = await modelWithSelfie(setup);
    await setup.runOrder(modelId);
    // Progression 'calls': each status call moves the training on.
    for (let i = 0; i < 100 && (await setup.getOrderStatus(modelId)).status !== 'DONE'; i++);
    return modelId;
  }

  /** Runs `body` with a provider worker whose client times out after `timeoutMs`, settling for `settleMs`. */
  async function withWorker<T>(
    settings: { timeoutMs: number; settleMs: number },
    body: (taskQueue: string) => Promise<T>,
  ): Promise<T> {
    const taskQueue = uniqueName('settling-write');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue,
      workflowsPath: require.resolve('../stand-in-workflows/settling-write-workflows'),
      interceptors: withActivityFailures(),
      ...PROVIDER_WORKER_HEARTBEATS,
      activities: createProviderActivities({
        provider: new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: settings.timeoutMs }),
        imageAccess: { roots: [images], urlHosts: [] },
        providerScope: 'settling-write-test',
        providerTimeoutMs: settings.timeoutMs,
        writeSettleMs: settings.settleMs,
      }),
    });
    return worker.runUntil(() => body(taskQueue));
  }

  const holdWrites = (endpoint: EndpointName, slowMs: number) =>
    sim.setOptions({ slowRate: 1, slowMs, faultEndpoints: [endpoint] });
  const requestsTo = (endpoint: EndpointName) => sim.stats().requests.byEndpoint[endpoint] ?? 0;
  const ordersOf = (modelId: number) => sim.stats().orders.filter((order) => order.parent === modelId);

  async function createOrder(modelId: number, timeouts: WriteTimeouts, taskQueue: string) {
    return env.client.workflow.execute(createOrderWorkflow, {
      taskQueue,
      workflowId: uniqueName('settling-create'),
      args: [timeouts, { modelId, styleId: 3, gender: 1 }],
    });
  }

  it('the server ends the attempt by its start-to-close timeout with the create in flight: the retry finds it', async () => {
    const modelId = await trainedModel();
    const before = requestsTo('createOrder');
    // The client would wait 3 s, longer than the attempt's 2 s: the server ends the attempt, with
    // the create held until 4 s. Its retry, 1 s after, must not look before the create has landed.
    holdWrites('createOrder', 4_000);
    const result = await withWorker({ timeoutMs: 3_000, settleMs: 2_000 }, (taskQueue) =>
      createOrder(modelId, { startToCloseMs: 2_000 }, taskQueue),
    );
    expect(requestsTo('createOrder') - before).toBe(1);
    expect(result.reconciled).toBe(true);
    expect(ordersOf(modelId).map((order) => order.id)).toEqual([result.orderId]);
  }, 60_000);

  it('with the default settings scaled down by 10, a create held for twice PROVIDER_TIMEOUT_MS is not repeated', async () => {
    const modelId = await trainedModel();
    const before = requestsTo('createOrder');
    // Defaults / 10: start-to-close 60 s -> 6 s, PROVIDER_TIMEOUT_MS 30 s -> 3 s,
    // PROVIDER_WRITE_SETTLE_MS 60 s -> 6 s; the create is held 2 x 3 s.
    holdWrites('createOrder', 6_000);
    const result = await withWorker({ timeoutMs: 3_000, settleMs: 6_000 }, (taskQueue) =>
      createOrder(modelId, { startToCloseMs: 6_000 }, taskQueue),
    );
    expect(requestsTo('createOrder') - before).toBe(1);
    expect(ordersOf(modelId).map((order) => order.id)).toEqual([result.orderId]);
  }, 60_000);

  it('a slow but live upload, heartbeating, is not retried', async () => {
    const modelId = (await setup.createModel({ styles: [3], gender: 1 })).id;
    const image = path.join(images, 'selfie.png');
    writeFileSync(image, tinyPng(8, 8));
    const before = requestsTo('uploadTrainingImage');
    // The product's upload timeouts; the provider holds the upload for 1.5 heartbeat timeouts.
    holdWrites('uploadTrainingImage', UPLOAD_HEARTBEAT_TIMEOUT_MS * 1.5);
    const result = await withWorker({ timeoutMs: 30_000, settleMs: 60_000 }, (taskQueue) =>
      env.client.workflow.execute(uploadSelfieWorkflow, {
        taskQueue,
        workflowId: uniqueName('settling-upload'),
        args: [
          { startToCloseMs: UPLOAD_START_TO_CLOSE_MS, heartbeatMs: UPLOAD_HEARTBEAT_TIMEOUT_MS },
          { modelId, image },
        ],
      }),
    );
    expect(requestsTo('uploadTrainingImage') - before).toBe(1);
    expect(result.reconciled).toBe(false);
  }, 90_000);
});

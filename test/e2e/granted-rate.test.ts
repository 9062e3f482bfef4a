import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { MockActivityEnvironment, type TestWorkflowEnvironment } from '@temporalio/testing';
import { createCampaignActivities } from '../../activities/campaign-activities';
import { createGrantedRateActivities } from '../../activities/granted-rate-activities';
import {
  GRANTED_RATE_WORKFLOW_TYPE,
  grantedRateQuery,
  grantedRateWorkflowId,
  providerAnswersSignal,
  type GrantedRateInput,
} from '../../src/contracts/granted-rate';
import { ProviderAnswerReporter } from '../../src/worker/provider-answer-reporter';
import { setProviderQueueRateLimit } from '../../src/operations/provider-queue-rate';
import { loadConfig } from '../../src/config/load-config';
import { createProviderWorker } from '../../src/worker/create-worker';
import { pipelineWorkflowBundle } from '../../src/worker/workflow-bundle';
import { createDevServerEnv, devServerUnderTest, makeScratchDir, uniqueName } from '../helpers/temporal-env';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
import { fanOutTouches } from '../stand-in-workflows/queue-rate-workflows';

// TASK_QUEUE_TYPE_ACTIVITY
const TYPE_ACTIVITY = 2;

/**
 * The provider rate controller against the dev server: the provider workers' reports start it,
 * it sets the provider queue's rate limit through the task queue configuration, and that limit
 * binds every worker on the queue, over the (higher) limit each worker sets itself.
 */
describe('the provider rate controller', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await createDevServerEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  async function queueRate(taskQueue: string): Promise<number | undefined> {
    const answer = await env.client.workflowService.describeTaskQueue({
      namespace: env.namespace,
      taskQueue: { name: taskQueue, kind: 1 },
      taskQueueType: TYPE_ACTIVITY,
      reportConfig: true,
    });
    return answer.config?.queueRateLimit?.rateLimit?.requestsPerSecond ?? undefined;
  }

  it('sets the queue rate limit that two workers share, and cuts it on 429s', async () => {
    const pipelineQueue = uniqueName('rate');
    const providerQueue = `${pipelineQueue}-provider`;
    const fanOutQueue = `${pipelineQueue}-fan-out`;
    const starts: { worker: string; at: number }[] = [];
    // Two workers of one queue need two connections (the SDK refuses a second on the same one).
    const second = await NativeConnection.connect({ address: devServerUnderTest().address });
    const providerWorker = (name: string, connection: NativeConnection) =>
      Worker.create({
        connection,
        namespace: env.namespace,
        taskQueue: providerQueue,
        activities: { touch: async () => void starts.push({ worker: name, at: Date.now() }) },
        // Far above the controller's rate: the queue's configured limit must win.
        maxTaskQueueActivitiesPerSecond: 50,
      });
    const workers = await Promise.all([
      Worker.create({
        connection: env.nativeConnection,
        namespace: env.namespace,
        taskQueue: pipelineQueue,
        workflowBundle: await pipelineWorkflowBundle(),
        activities: createGrantedRateActivities(Runtime.instance().metricMeter),
      }),
      Worker.create({
        connection: env.nativeConnection,
        namespace: env.namespace,
        taskQueue: fanOutQueue,
        workflowsPath: require.resolve('../stand-in-workflows/queue-rate-workflows'),
      }),
      providerWorker('a', env.nativeConnection),
      providerWorker('b', second),
    ]);
    const running = workers.map((w) => w.run());
    try {
      const reporter = new ProviderAnswerReporter({
        client: env.client,
        controllerTaskQueue: pipelineQueue,
        providerTaskQueue: providerQueue,
        ceiling: 4,
      });
      // A first report starts the controller, which sets the queue's rate to the ceiling.
      reporter.observe({ method: 'GET', endpoint: '/styles', outcome: 'ok', httpStatus: 200, durationMs: 1 });
      await reporter.flush();
      const controller = env.client.workflow.getHandle(grantedRateWorkflowId(providerQueue));
      await waitFor(async () => (await queueRate(providerQueue)) === 4);

      const count = 24;
      await env.client.workflow.execute(fanOutTouches, {
        taskQueue: fanOutQueue,
        workflowId: uniqueName('fan-out'),
        args: [providerQueue, count],
      });
      const spanS = (Math.max(...starts.map((s) => s.at)) - Math.min(...starts.map((s) => s.at))) / 1000;
      // At 4/s, 24 activities take about 5 s (at the workers' own 50/s, under half a second).
      expect(starts).toHaveLength(count);
      expect(spanS).toBeGreaterThan(3.5);
      expect(new Set(starts.map((s) => s.worker))).toEqual(new Set(['a', 'b']));

      // 429s: the controller cuts the rate, on the server and in its query.
      for (let i = 0; i < 3; i++) {
        reporter.observe({
          method: 'GET',
          endpoint: '/styles',
          outcome: 'ok',
          httpStatus: 200,
          durationMs: 1,
        });
      }
      reporter.observe({
        method: 'GET',
        endpoint: '/styles',
        outcome: 'rate-limited',
        httpStatus: 429,
        durationMs: 1,
        retryAfterMs: 1_000,
      });
      await reporter.flush();
      await waitFor(async () => ((await queueRate(providerQueue)) ?? 4) < 4);
      const view = await controller.query(grantedRateQuery);
      expect(view.rate).toBeLessThan(4);
      expect(view.rateLimitedTotal).toBe(1);
      expect(await queueRate(providerQueue)).toBeCloseTo(view.rate, 5);

      // The campaigns' in-flight window reads the granted rate, not the ceiling (PROVIDER_MAX_RPS).
      // No manifest is read: observing the queue touches no store.
      const campaignActivities = createCampaignActivities({
        store: new FsBlobStore(await makeScratchDir('granted-rate')),
        providerMaxRps: 4,
      });
      const observe = () => campaignActivities.observeProviderQueue({ providerTaskQueue: providerQueue });
      const reading: Awaited<ReturnType<typeof observe>> = await new MockActivityEnvironment(undefined, {
        client: env.client,
      }).run(observe);
      expect(reading.quotaRps).toBeCloseTo(view.rate, 5);
      await controller.terminate('test over');
      await reporter.stop();
    } finally {
      workers.forEach((w) => w.shutdown());
      await Promise.all(running);
      await second.close();
    }
  });

  it('reads reports that queued up while it had no worker over the time they cover', async () => {
    const pipelineQueue = uniqueName('backlog');
    const providerQueue = `${pipelineQueue}-provider`;
    // Learned earlier: 6/s. The provider grants 4/s, and one worker's reports of five seconds wait
    // together for the controller's next workflow task (its worker was killed, or is slow).
    const controller = await env.client.workflow.start(GRANTED_RATE_WORKFLOW_TYPE, {
      taskQueue: pipelineQueue,
      workflowId: grantedRateWorkflowId(providerQueue),
      args: [
        {
          providerTaskQueue: providerQueue,
          ceiling: 10,
          carried: { rate: 6, ceiling: 10, rateLimitedTotal: 0, acceptedTotal: 0 },
        } satisfies GrantedRateInput,
      ],
    });
    for (let second = 0; second < 5; second++) {
      await controller.signal(providerAnswersSignal, {
        workerId: 'provider-worker-1',
        windowMs: 1_000,
        accepted: 4,
        rateLimited: 0,
        retryAfterMs: 0,
        ceiling: 10,
      });
    }
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue: pipelineQueue,
      workflowBundle: await pipelineWorkflowBundle(),
      activities: createGrantedRateActivities(Runtime.instance().metricMeter),
    });
    const running = worker.run();
    try {
      await waitFor(async () => (await controller.query(grantedRateQuery)).acceptedTotal === 20);
      const view = await controller.query(grantedRateQuery);
      // 20 accepted over 5 s is 4/s: less than the share of 6/s in use the law asks before rising
      // (read over the one second of the longest report, it would be 20/s and raise the rate).
      expect(view.rate).toBe(6);
      expect(view.reason).toMatch(
        /^holding: 4\.00 of 6\.00 requests\/s in use \(20 accepted, 0 rate limited in 5\.0 s\)/,
      );
      expect(await queueRate(providerQueue)).toBeCloseTo(6, 5);
      await controller.terminate('test over');
    } finally {
      worker.shutdown();
      await running;
    }
  });

  it('is removed by a provider worker with PROVIDER_RATE_CONTROL=fixed, so PROVIDER_MAX_RPS applies again', async () => {
    const pipelineQueue = uniqueName('fixed');
    const providerQueue = `${pipelineQueue}-provider`;
    // What an adaptive deployment's controller left on the server.
    await setProviderQueueRateLimit(
      env.client.workflowService,
      { namespace: env.namespace ?? 'default', identity: 'test', providerTaskQueue: providerQueue },
      2.5,
      'learned earlier',
    );
    expect(await queueRate(providerQueue)).toBeCloseTo(2.5, 5);
    const config = loadConfig({
      TEMPORAL_ADDRESS: devServerUnderTest().address,
      TEMPORAL_NAMESPACE: env.namespace ?? 'default',
      TEMPORAL_TASK_QUEUE: pipelineQueue,
      PROVIDER_MAX_RPS: '4',
      PROVIDER_RATE_CONTROL: 'fixed',
    });
    const worker = await createProviderWorker({ config, connection: env.nativeConnection });
    const running = worker.run();
    try {
      expect(await queueRate(providerQueue)).toBeUndefined();
    } finally {
      worker.shutdown();
      await running;
    }
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

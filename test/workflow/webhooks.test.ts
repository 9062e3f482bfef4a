import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Webhook } from 'standardwebhooks';
import { startCampaign } from '@avatar-pipeline/client/campaign/campaigns';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import {
  deliveryWorkflowId,
  webhookEventSignal,
  type AnnouncedSignal,
  type WebhookDeliveryInput,
} from '@avatar-pipeline/client/contracts/webhook-delivery';
import type { AnnouncedEvent, WebhookEnvelope } from '@avatar-pipeline/client/contracts/webhook-events';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { FsBlobStore } from '../../src/storage';
import { DeliveryLog } from '@avatar-pipeline/client/webhooks/delivery-log';
import { endpointSecret } from '../../src/webhooks/endpoint-secret';
import { newEndpointId, WebhookEndpointStore } from '@avatar-pipeline/client/webhooks/endpoint-store';
import { WebhookRegistry } from '../../src/webhooks/webhook-registry';
import type { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { startTestHttpServer, type TestHttpServer } from '../fixtures/http-test-server';
import { FAST_POLLING, subjects } from '../helpers/campaign-rig';
import { createTestWorker, SkippedClock } from '../helpers/pipeline-worker';
import { ATTEMPTS_PER_RUN, BACKOFF_MS, RETRY_FOR_MS } from '../../workflows/webhook-delivery';
import { writeSelfies } from '../helpers/selfie-files';
import {
  createDevServerEnv,
  createTimeSkippingEnv,
  makeScratchDir,
  uniqueName,
} from '../helpers/temporal-env';

const KEY = 'webhook-server-key-for-tests-0123456789';
const TENANT = 'default';
const HOUR = 60 * 60 * 1000;
const MINUTE = 60 * 1000;

interface Arrival {
  endpoint: string;
  event: WebhookEnvelope;
  webhookId: string;
  status: number;
  verified: boolean;
  /** Server time at arrival. */
  at: number;
}

describe('webhook delivery on the time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  let clock: SkippedClock;
  let receiver: TestHttpServer;
  let storeDir: string;
  let endpoints: WebhookEndpointStore;
  let log: DeliveryLog;
  let sim: RunningSimulator | undefined;
  let arrivals: Arrival[];
  /** The receiver answers 503 while this is true. */
  let down: boolean;
  /** The Retry-After the receiver sends with its 503s, if any. */
  let retryAfter: string | undefined;

  beforeEach(async () => {
    env = await createTimeSkippingEnv();
    clock = new SkippedClock(env);
    storeDir = await makeScratchDir('webhooks');
    const store = new FsBlobStore(storeDir);
    endpoints = new WebhookEndpointStore(store);
    log = new DeliveryLog(store, 14);
    arrivals = [];
    down = false;
    retryAfter = undefined;
    receiver = await startTestHttpServer((req, res, body) => void answer(req, res, body));
  });
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
    await receiver.close();
    await env.teardown();
  });

  /** Records the delivery, verified as a receiver holding the endpoint's secret would, and answers. */
  async function answer(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    const endpoint = (req.url ?? '').split('/').at(-1)!;
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    let verified: boolean;
    try {
      new Webhook(endpointSecret(KEY, TENANT, endpoint, 1)).verify(body, headers);
      verified = true;
    } catch {
      verified = false;
    }
    const status = down ? 503 : 200;
    arrivals.push({
      endpoint,
      event: JSON.parse(body) as WebhookEnvelope,
      webhookId: headers['webhook-id'],
      status,
      verified,
      at: await env.currentTimeMs(),
    });
    res
      .writeHead(status, down && retryAfter !== undefined ? { 'retry-after': retryAfter } : {})
      .end(down ? 'receiver down for maintenance' : 'ok');
  }

  async function register(events: string[]): Promise<string> {
    const id = newEndpointId();
    await endpoints.put({
      id,
      tenant: TENANT,
      url: `${receiver.origin}/hooks/${id}`,
      events,
      createdAt: new Date().toISOString(),
      generation: 1,
    });
    return id;
  }

  function worker(taskQueue: string, providerUrl = 'http://127.0.0.1:9'): Promise<PipelineWorkers> {
    return createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl,
      imageRoots: [storeDir],
      interceptors: clock.interceptors,
      archiveAvatars: true,
      callbacks: { privateHosts: ['127.0.0.1'], webhookKey: KEY },
    });
  }

  const accepted = (endpoint: string) => arrivals.filter((a) => a.endpoint === endpoint && a.status === 200);

  test('outage: the receiver down for 6 hours, then back: every event of 20 runs arrives, in order per run; the log shows each failed attempt; a redelivery keeps the webhook-id', async () => {
    const endpoint = await register(['*']);
    const taskQueue = uniqueName('webhooks');
    const runs = Array.from({ length: 20 }, (_, i) => `run-${i}-${randomUUID()}`);
    const eventsOf = (run: string): AnnouncedEvent[] => [
      { type: 'pipeline.started', timestamp: '', data: { workflowId: run, styles: [3, 5] } },
      { type: 'training.completed', timestamp: '', data: { workflowId: run, modelId: 1 } },
      {
        type: 'style.completed',
        timestamp: '',
        data: { workflowId: run, modelId: 1, styleId: 3, avatars: [] },
      },
      {
        type: 'style.failed',
        timestamp: '',
        data: { workflowId: run, modelId: 1, styleId: 5, error: { message: 'x' } },
      },
      { type: 'pipeline.failed', timestamp: '', data: { workflowId: run, error: { message: 'x' } } },
    ];
    down = true;
    const started = await env.currentTimeMs();
    const w = await worker(taskQueue);
    await w.runUntil(async () => {
      // As each run's announcer does: the first event starts the delivery workflow, the rest are signals.
      for (const run of runs) {
        const events = eventsOf(run);
        for (const [i, event] of events.entries()) {
          const signal: AnnouncedSignal = { event, ...(i === events.length - 1 ? { last: true } : {}) };
          await env.client.workflow.signalWithStart<
            (input: WebhookDeliveryInput) => Promise<unknown>,
            [AnnouncedSignal]
          >(WORKFLOW_TYPES.webhookDelivery, {
            workflowId: deliveryWorkflowId(run),
            taskQueue,
            args: [{ tenant: TENANT, source: run }],
            signal: webhookEventSignal,
            signalArgs: [signal],
          });
        }
      }
      await env.sleep(6 * HOUR);
      expect(accepted(endpoint)).toEqual([]);
      down = false;
      // One wait at a time: each wait lets the server skip time, and waits made together would
      // let it skip while a delivery attempt is running.
      for (const run of runs) await env.client.workflow.getHandle(deliveryWorkflowId(run)).result();

      // Every event of every run, accepted at least once per webhook-id, in order per run.
      for (const run of runs) {
        const got = accepted(endpoint).filter((a) => a.event.source === run);
        expect(got.every((a) => a.verified)).toBe(true);
        const firsts = got.filter((a, i) => got.findIndex((b) => b.webhookId === a.webhookId) === i);
        expect(firsts.map((a) => a.event.sequence)).toEqual([1, 2, 3, 4, 5]);
        expect(firsts.map((a) => a.event.type)).toEqual(eventsOf(run).map((e) => e.type));
        expect(new Set(firsts.map((a) => a.webhookId)).size).toBe(5);
        for (const a of got) expect(a.webhookId).toBe(a.event.id);
        expect(firsts[0]!.at - started).toBeGreaterThanOrEqual(6 * HOUR);
      }
      // Every refused attempt is in the log, with its status and the start of the answer.
      const refused = arrivals.filter((a) => a.status === 503);
      expect(refused.length).toBeGreaterThanOrEqual(20 * 5);
      // The log's clock is the time of the deliveries: once every workflow has closed, the test
      // server's clock runs ahead to its next deadline (years away), past any retention.
      const now = Math.max(...arrivals.map((a) => a.at)) + MINUTE;
      const failed = await log.attempts(TENANT, endpoint, { failed: true, limit: 10_000 }, now);
      expect(failed).toHaveLength(refused.length);
      expect(
        failed.every((a) => a.statusCode === 503 && a.response === 'receiver down for maintenance'),
      ).toBe(true);
      const byWebhookId = new Map<string, number>();
      for (const a of refused) byWebhookId.set(a.webhookId, (byWebhookId.get(a.webhookId) ?? 0) + 1);
      for (const [webhookId, count] of byWebhookId) {
        expect(failed.filter((a) => a.webhookId === webhookId)).toHaveLength(count);
      }

      // Redelivery from the log: the same webhook-id arrives again.
      const chosen = failed[0]!;
      const before = accepted(endpoint).filter((a) => a.webhookId === chosen.webhookId).length;
      const redelivery = await env.client.workflow.start(WORKFLOW_TYPES.webhookRedelivery, {
        workflowId: uniqueName('redeliver'),
        taskQueue,
        args: [{ tenant: TENANT, endpointId: endpoint, deliveryId: chosen.deliveryId }],
      });
      expect(await redelivery.result()).toEqual({ outcome: 'delivered' });
      const again = accepted(endpoint).filter((a) => a.webhookId === chosen.webhookId);
      expect(again).toHaveLength(before + 1);
      expect(again.at(-1)!.verified).toBe(true);
      const logged = await log.attempts(TENANT, endpoint, { run: chosen.run }, now);
      expect(logged.some((a) => a.redelivery && a.ok && a.webhookId === chosen.webhookId)).toBe(true);
    });
  }, 300_000);

  test('a receiver answering 503 with Retry-After: 0.001 for 3 days: attempts stay spaced by the backoff, and the run continues as new so its history stays bounded', async () => {
    const endpoint = await register(['*']);
    const taskQueue = uniqueName('webhooks-retry-after');
    const source = `run-${randomUUID()}`;
    const workflowId = deliveryWorkflowId(source);
    down = true;
    retryAfter = '0.001';
    // A gate, not a clock: far more attempts than 3 days of backoff allows means the receiver set the pace.
    const tooMany = 500;
    let flooded!: () => void;
    const flood = new Promise<'flooded'>((resolve) => (flooded = () => resolve('flooded')));
    const w = await worker(taskQueue);
    await w.runUntil(async () => {
      const first = await env.client.workflow.signalWithStart<
        (input: WebhookDeliveryInput) => Promise<unknown>,
        [AnnouncedSignal]
      >(WORKFLOW_TYPES.webhookDelivery, {
        workflowId,
        taskQueue,
        args: [{ tenant: TENANT, source }],
        signal: webhookEventSignal,
        signalArgs: [
          {
            event: {
              type: 'pipeline.failed',
              timestamp: '',
              data: { workflowId: source, error: { message: 'x' } },
            },
            last: true,
          },
        ],
      });
      const watch = setInterval(() => {
        if (arrivals.length > tooMany) flooded();
      }, 50);
      try {
        const ended = await Promise.race([env.client.workflow.getHandle(workflowId).result(), flood]);
        if (ended === 'flooded') await first.terminate('the receiver set the retry pace');
        expect(arrivals.length).toBeLessThanOrEqual(tooMany);
      } finally {
        clearInterval(watch);
      }

      const times = arrivals.filter((a) => a.endpoint === endpoint).map((a) => a.at);
      expect(times.length).toBeGreaterThan(ATTEMPTS_PER_RUN);
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(BACKOFF_MS[0]!);
      // The 3-day window counts from the first attempt, across the runs.
      expect(times.at(-1)! - times[0]!).toBeLessThanOrEqual(RETRY_FOR_MS);

      // The first run handed over to a second one, and no run's history grew with the attempts.
      const firstRun = await env.client.workflow.getHandle(workflowId, first.signaledRunId).fetchHistory();
      expect(firstRun.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
      expect(firstRun.events!.length).toBeLessThan(ATTEMPTS_PER_RUN * 12);
      const lastRun = await env.client.workflow.getHandle(workflowId).fetchHistory();
      expect(lastRun.events!.length).toBeLessThan(ATTEMPTS_PER_RUN * 12);
      const described = await env.client.workflow.getHandle(workflowId).describe();
      expect(described.runId).not.toBe(first.signaledRunId);
    });
  }, 300_000);

  test('two redeliver calls at once start one redelivery workflow: both answer the same workflow and run; once it ends, another may start', async () => {
    const endpoint = await register(['*']);
    const event: WebhookEnvelope = {
      id: `evt_${randomUUID()}`,
      type: 'pipeline.failed',
      timestamp: new Date(0).toISOString(),
      sequence: 1,
      source: `run-${randomUUID()}`,
      data: { workflowId: 'wf-1', error: { message: 'x' } },
    };
    await log.record(TENANT, endpoint, event, {
      attempt: 1,
      at: new Date().toISOString(),
      statusCode: 503,
      latencyMs: 1,
      response: '',
      ok: false,
    });
    const registry = new WebhookRegistry({
      store: new FsBlobStore(storeDir),
      webhookKey: KEY,
      privateHosts: ['127.0.0.1'],
    });
    // No worker polls this queue: the first redelivery stays running while the second call arrives.
    const taskQueue = uniqueName('redeliver-once');
    const [a, b] = await Promise.all([
      registry.redeliver(env.client, taskQueue, TENANT, endpoint, event.id),
      registry.redeliver(env.client, taskQueue, TENANT, endpoint, event.id),
    ]);
    expect(a).toBeDefined();
    expect(b).toEqual(a);
    const third = await registry.redeliver(env.client, taskQueue, TENANT, endpoint, event.id);
    expect(third).toEqual(a);
    // Ended (here terminated), the delivery can be sent again by a new run of the same workflow id.
    await env.client.workflow.getHandle(a!.workflowId).terminate('test');
    const later = await registry.redeliver(env.client, taskQueue, TENANT, endpoint, event.id);
    expect(later?.workflowId).toBe(a!.workflowId);
    expect(later?.runId).not.toBe(a!.runId);
    await env.client.workflow.getHandle(later!.workflowId).terminate('test');
  });

  test('a pipeline whose styles finish minutes apart: style.completed arrives before pipeline.completed; an endpoint subscribed to pipeline.completed gets nothing else', async () => {
    const everything = await register(['*']);
    const completions = await register(['pipeline.completed']);
    const selfies = await writeSelfies(2);
    await clock.sync();
    sim = await startSimulator({
      progression: {
        mode: 'wall',
        trainingMs: 10 * MINUTE,
        generationMs: 2 * MINUTE,
        generationMsByStyle: { '5': 12 * MINUTE },
      },
      clock: clock.now,
    });
    const taskQueue = uniqueName('webhook-pipeline');
    const w = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [storeDir, selfies.dir],
      interceptors: clock.interceptors,
      archiveAvatars: true,
      callbacks: { privateHosts: ['127.0.0.1'], webhookKey: KEY },
    });
    await w.runUntil(async () => {
      const pipeline = await startPipeline(
        env.client,
        { images: selfies.files, styles: [3, 5], gender: 1 },
        placementFrom({ taskQueue, archiveAvatars: true }),
      );
      const result = await pipeline.result();
      await env.client.workflow.getHandle(deliveryWorkflowId(pipeline.workflowId)).result();

      const all = accepted(everything);
      expect(all.every((a) => a.verified)).toBe(true);
      expect(
        all.map((a) => [a.event.type, 'styleId' in a.event.data ? a.event.data.styleId : undefined]),
      ).toEqual([
        ['pipeline.started', undefined],
        ['training.completed', undefined],
        ['style.completed', 3],
        ['style.completed', 5],
        ['pipeline.completed', undefined],
      ]);
      const [first, second, end] = [all[2]!, all[3]!, all[4]!];
      // The quick style was announced as it finished, about ten minutes before the run ended.
      expect(Date.parse(end.event.timestamp) - first.at).toBeGreaterThanOrEqual(5 * MINUTE);
      expect(second.at).toBeGreaterThan(first.at);
      const style3 = first.event.type === 'style.completed' ? first.event.data : undefined;
      expect(style3?.avatars).toHaveLength(result.generations[0]!.avatars.length);
      expect(style3?.avatars.every((a) => a.archiveKey !== undefined)).toBe(true);

      const filtered = arrivals.filter((a) => a.endpoint === completions);
      expect(filtered.map((a) => a.event.type)).toEqual(['pipeline.completed']);
      expect(filtered[0]!.verified).toBe(true);
    });
  }, 300_000);
});

/**
 * Campaigns on the dev server (the time-skipping server cannot answer the campaign's task queue
 * questions): a fast simulator, so the campaign ends within one 30-second progress interval.
 */
describe('campaign webhook events on the dev server', () => {
  let env: TestWorkflowEnvironment;
  let receiver: TestHttpServer;
  let storeDir: string;
  let sim: RunningSimulator;
  const byEndpoint = new Map<string, WebhookEnvelope[]>();

  beforeAll(async () => {
    env = await createDevServerEnv();
    storeDir = await makeScratchDir('webhooks-campaign');
    sim = await startSimulator({ progression: { mode: 'wall', trainingMs: 150, generationMs: 150 } });
    receiver = await startTestHttpServer((req, res, body) => {
      const endpoint = (req.url ?? '').split('/').at(-1)!;
      byEndpoint.set(endpoint, [...(byEndpoint.get(endpoint) ?? []), JSON.parse(body) as WebhookEnvelope]);
      res.writeHead(204).end();
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await sim?.stop();
    await env?.teardown();
  });

  test("a campaign announces its progress and its completion; its subjects' runs their ends", async () => {
    const endpoints = new WebhookEndpointStore(new FsBlobStore(storeDir));
    const register = async (events: string[]) => {
      const id = newEndpointId();
      await endpoints.put({
        id,
        tenant: TENANT,
        url: `${receiver.origin}/hooks/${id}`,
        events,
        createdAt: new Date().toISOString(),
        generation: 1,
      });
      return id;
    };
    const campaignOnly = await register(['campaign.*']);
    const completions = await register(['pipeline.completed']);
    const selfies = await writeSelfies(1);
    const taskQueue = uniqueName('webhook-campaign');
    const w = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [storeDir, selfies.dir],
      callbacks: { privateHosts: ['127.0.0.1'], webhookKey: KEY },
    });
    await w.runUntil(async () => {
      const campaign = await startCampaign(env.client, subjects(3, selfies.files[0]!), {
        ...placementFrom({ taskQueue }),
        // The workers' blob store (testConfig's: the first image root), where they read manifests.
        store: new FsBlobStore(storeDir),
        campaignId: uniqueName('webhook-campaign'),
        options: { maxInFlight: 2, fixedWindow: true, polling: FAST_POLLING },
      });
      await campaign.result();
      await env.client.workflow.getHandle(deliveryWorkflowId(campaign.campaignId)).result();
      for (const subject of ['u1', 'u2', 'u3']) {
        await env.client.workflow.getHandle(deliveryWorkflowId(`${campaign.campaignId}/${subject}`)).result();
      }

      const got = byEndpoint.get(campaignOnly) ?? [];
      expect(got.every((e) => e.type.startsWith('campaign.'))).toBe(true);
      expect(got.filter((e) => e.type === 'campaign.progress').length).toBeGreaterThan(0);
      expect(got.at(-1)).toMatchObject({
        type: 'campaign.completed',
        source: campaign.campaignId,
        data: { campaignId: campaign.campaignId, state: 'completed', total: 3 },
      });
      const sequences = got.map((e) => e.sequence);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      const ends = byEndpoint.get(completions) ?? [];
      expect(ends.map((e) => e.type)).toEqual([
        'pipeline.completed',
        'pipeline.completed',
        'pipeline.completed',
      ]);
      expect(new Set(ends.map((e) => (e.type === 'pipeline.completed' ? e.data.subjectId : '')))).toEqual(
        new Set(['u1', 'u2', 'u3']),
      );
    });
  }, 120_000);
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MetricMeter } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createWebhookActivities, DISABLE_AFTER_MS } from '../../../activities/webhook-activities';
import { FsBlobStore } from '../../../src/storage';
import { newEndpointId, WebhookEndpointStore } from '@avatar-pipeline/client/webhooks/endpoint-store';
import { WEBHOOK_METRICS, WebhookMetrics } from '../../../src/webhooks/webhook-metrics';
import { startTestHttpServer, type TestHttpServer } from '../../fixtures/http-test-server';
import { SAMPLE_EVENT } from '../../helpers/webhook-attempt';

/** A meter that keeps what was recorded: counters summed by name and outcome, gauges' last value. */
function recordingMeter() {
  const counts = new Map<string, number>();
  const gauges = new Map<string, number>();
  const meter = {
    createCounter: (name: string) => ({
      add: (value: number, tags?: Record<string, unknown>) => {
        const key = `${name}${tags?.outcome ? `{${String(tags.outcome)}}` : ''}`;
        counts.set(key, (counts.get(key) ?? 0) + value);
      },
    }),
    createGauge: (name: string) => ({ set: (value: number) => gauges.set(name, value) }),
    createHistogram: () => ({ record: () => undefined }),
  } as unknown as MetricMeter;
  return { meter, counts, gauges };
}

describe('endpoint health and webhook metrics', () => {
  let dir: string;
  let receiver: TestHttpServer;
  let status = 500;
  beforeAll(async () => {
    receiver = await startTestHttpServer((_req, res) => res.writeHead(status).end('nope'));
  });
  afterAll(() => receiver.close());
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'endpoint-health-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  test('an endpoint failing every delivery for 3 days is disabled, logged and counted; deliveries to it stop', async () => {
    const store = new FsBlobStore(dir);
    const endpoints = new WebhookEndpointStore(store);
    const id = newEndpointId();
    await endpoints.put({
      id,
      tenant: 'default',
      url: `${receiver.origin}/hook`,
      events: ['*'],
      createdAt: new Date(0).toISOString(),
      generation: 1,
    });
    const { meter, counts, gauges } = recordingMeter();
    const activities = createWebhookActivities({
      store,
      webhookKey: 'webhook-server-key-for-tests-0123456789',
      privateHosts: ['127.0.0.1'],
      metrics: new WebhookMetrics(meter),
    });
    const warnings: string[] = [];
    const ignore = () => undefined;
    const logger = {
      log: ignore,
      trace: ignore,
      debug: ignore,
      info: ignore,
      warn: (message: string) => warnings.push(message),
      error: ignore,
    };
    const env = new MockActivityEnvironment(undefined, { logger });
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const attempt = (n: number, at: number) =>
      env.run(activities.deliverWebhook, {
        tenant: 'default',
        target: { kind: 'endpoint' as const, endpointId: id },
        event: SAMPLE_EVENT,
        attempt: n,
        at,
        firstAt: t0,
        redelivery: false,
      });

    await expect(attempt(1, t0)).rejects.toMatchObject({ type: 'WebhookRejected' });
    expect(gauges.get(WEBHOOK_METRICS.oldestUndelivered)).toBe(0);
    await expect(attempt(2, t0 + DISABLE_AFTER_MS / 2)).rejects.toMatchObject({ type: 'WebhookRejected' });
    expect(gauges.get(WEBHOOK_METRICS.oldestUndelivered)).toBe(DISABLE_AFTER_MS / 2 / 1000);
    expect((await endpoints.get('default', id))?.disabledAt).toBeUndefined();
    await expect(attempt(3, t0 + DISABLE_AFTER_MS)).rejects.toMatchObject({ type: 'WebhookRejected' });
    expect((await endpoints.get('default', id))?.disabledAt).toBe(
      new Date(t0 + DISABLE_AFTER_MS).toISOString(),
    );
    expect(warnings).toContainEqual(expect.stringMatching(/webhook endpoint disabled/));
    expect(counts.get(WEBHOOK_METRICS.disabledEndpoints)).toBe(1);
    expect(counts.get(`${WEBHOOK_METRICS.deliveries}{rejected}`)).toBe(3);

    // Disabled: nothing more is sent, and its deliveries stop for good.
    const before = receiver.requests.length;
    await expect(attempt(4, t0 + DISABLE_AFTER_MS + 1)).rejects.toMatchObject({
      type: 'WebhookEndpointDisabled',
      nonRetryable: true,
    });
    expect(receiver.requests.length).toBe(before);
    expect(await activities.webhookTargets({ tenant: 'default', type: 'pipeline.completed' })).toEqual([]);
  });

  test('a success clears the failing streak and the oldest-undelivered age', async () => {
    const store = new FsBlobStore(dir);
    const endpoints = new WebhookEndpointStore(store);
    const id = newEndpointId();
    await endpoints.put({
      id,
      tenant: 'default',
      url: `${receiver.origin}/hook`,
      events: ['*'],
      createdAt: new Date(0).toISOString(),
      generation: 1,
    });
    const { meter, counts, gauges } = recordingMeter();
    const activities = createWebhookActivities({
      store,
      webhookKey: 'webhook-server-key-for-tests-0123456789',
      privateHosts: ['127.0.0.1'],
      metrics: new WebhookMetrics(meter),
    });
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const run = (n: number, at: number) =>
      new MockActivityEnvironment().run(activities.deliverWebhook, {
        tenant: 'default',
        target: { kind: 'endpoint' as const, endpointId: id },
        event: SAMPLE_EVENT,
        attempt: n,
        at,
        firstAt: t0,
        redelivery: false,
      });
    status = 500;
    await expect(run(1, t0 + 60_000)).rejects.toThrow();
    expect(await endpoints.health('default', id)).toEqual({
      failingSince: new Date(t0 + 60_000).toISOString(),
    });
    status = 204;
    await run(2, t0 + 120_000);
    expect(await endpoints.health('default', id)).toEqual({});
    expect(gauges.get(WEBHOOK_METRICS.oldestUndelivered)).toBe(0);
    expect(counts.get(`${WEBHOOK_METRICS.deliveries}{delivered}`)).toBe(1);
    status = 500;
  });
});

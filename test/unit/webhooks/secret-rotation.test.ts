import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Webhook } from 'standardwebhooks';
import { createWebhookActivities } from '../../../activities/webhook-activities';
import { FsBlobStore } from '../../../src/storage';
import { WebhookRegistry } from '../../../src/webhooks/webhook-registry';
import { startTestHttpServer, type TestHttpServer } from '../../fixtures/http-test-server';
import { SAMPLE_EVENT } from '../../helpers/webhook-attempt';

const KEY = 'webhook-server-key-for-tests-0123456789';

describe('rotating an endpoint secret', () => {
  let dir: string;
  let receiver: TestHttpServer;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'secret-rotation-'));
    receiver = await startTestHttpServer((_req, res) => res.writeHead(204).end());
  });
  afterAll(async () => {
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('during the overlap both secrets verify a delivery; after it only the new one', async () => {
    const store = new FsBlobStore(dir);
    const registry = new WebhookRegistry({ store, webhookKey: KEY, privateHosts: ['127.0.0.1'] });
    const created = await registry.add('default', { url: `${receiver.origin}/hook` });
    const now = Date.now();
    const rotated = (await registry.rotateSecret('default', created.id, 24, now))!;
    expect(rotated.secret).not.toBe(created.secret);
    const activities = createWebhookActivities({ store, webhookKey: KEY, privateHosts: ['127.0.0.1'] });
    const deliver = async (at: number) => {
      await new MockActivityEnvironment().run(activities.deliverWebhook, {
        tenant: 'default',
        target: { kind: 'endpoint' as const, endpointId: created.id },
        event: SAMPLE_EVENT,
        attempt: 1,
        at,
        firstAt: at,
        redelivery: false,
      });
      const got = receiver.requests.at(-1)!;
      const headers = Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(got.headers[h])]),
      );
      const accepts = (secret: string) => {
        try {
          new Webhook(secret).verify(got.body, headers);
          return true;
        } catch {
          return false;
        }
      };
      return { old: accepts(created.secret), new: accepts(rotated.secret) };
    };
    expect(await deliver(now + 60_000)).toEqual({ old: true, new: true });
    expect(await deliver(now + 25 * 60 * 60 * 1000)).toEqual({ old: false, new: true });
  });
});

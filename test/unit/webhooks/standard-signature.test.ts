import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Webhook } from 'standardwebhooks';
import { createWebhookActivities, type WebhookDependencies } from '../../../activities/webhook-activities';
import { callbackAttempt, SAMPLE_EVENT, UNUSED_STORE } from '../../helpers/webhook-attempt';
import { keyOfSecret, standardWebhookHeaders, whsecOf } from '../../../src/webhooks/standard-signature';
import { verifyCallbackSignature } from '../../../src/callbacks/signature';
import { tenantCallbackSecret } from '../../../src/callbacks/tenant-secret';

const SECRET = 'callback-secret-0123456789';
const PREVIOUS = 'whsec_' + Buffer.from('the-previous-secret-key').toString('base64');

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on loopback that records every request and answers 204. */
async function receiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hook`, received };
}

const headersOf = (r: Received): Record<string, string> => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

describe('Standard Webhooks signatures, checked by the reference library (standardwebhooks)', () => {
  const key = Buffer.from('a key of thirty-two bytes, or so');
  const message = { id: 'msg_1', timestamp: Math.floor(Date.now() / 1000), body: '{"a":"Zoë ✓"}' };

  it('verifies a signed message with the whsec_ secret', () => {
    const headers = standardWebhookHeaders(message, [key]);
    expect(new Webhook(whsecOf(key)).verify(message.body, headers)).toEqual({ a: 'Zoë ✓' });
  });

  it('rejects a tampered body, id or timestamp', () => {
    const headers = standardWebhookHeaders(message, [key]);
    const hook = new Webhook(whsecOf(key));
    expect(() => hook.verify(message.body.replace('Zoë', 'Zoe'), headers)).toThrow();
    expect(() => hook.verify(message.body, { ...headers, 'webhook-id': 'msg_2' })).toThrow();
    expect(() =>
      hook.verify(message.body, { ...headers, 'webhook-timestamp': String(message.timestamp + 1) }),
    ).toThrow();
  });

  it('signs with both keys during a rotation, so either secret verifies', () => {
    const old = Buffer.from('the old key, still trusted a while');
    const headers = standardWebhookHeaders(message, [key, old]);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(whsecOf(key)).verify(message.body, headers)).not.toThrow();
    expect(() => new Webhook(whsecOf(old)).verify(message.body, headers)).not.toThrow();
    expect(() => new Webhook(whsecOf(Buffer.from('a third key'))).verify(message.body, headers)).toThrow();
  });

  it('reads whsec_ secrets as base64 and other text as its bytes', () => {
    expect(keyOfSecret(whsecOf(key))).toEqual(key);
    expect(keyOfSecret(SECRET)).toEqual(Buffer.from(SECRET));
  });
});

describe('callbackUrl deliveries (deliverWebhook)', () => {
  let rig: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    rig = await receiver();
  });
  afterAll(async () => {
    await new Promise((resolve) => rig.server.close(resolve));
  });

  const send = async (deps: Partial<WebhookDependencies>, tenant = 'default') => {
    const activities = createWebhookActivities({
      store: UNUSED_STORE,
      signingSecret: SECRET,
      privateHosts: ['127.0.0.1'],
      ...deps,
    });
    await new MockActivityEnvironment().run(activities.deliverWebhook, {
      ...callbackAttempt(rig.url),
      tenant,
    });
    return rig.received.at(-1)!;
  };
  const secretOf = (tenant: string) => tenantCallbackSecret(SECRET, tenant);

  it('are accepted by a standardwebhooks receiver, with webhook-id the event id', async () => {
    const got = await send({});
    const whsec = secretOf('default');
    expect(new Webhook(whsec).verify(got.body, headersOf(got))).toMatchObject({ type: 'pipeline.cancelled' });
    expect(got.headers['webhook-id']).toBe(SAMPLE_EVENT.id);
    expect(got.headers['x-avatar-signature']).toBeUndefined();
  });

  it('are rejected when tampered with or replayed after the tolerance', async () => {
    const got = await send({});
    const hook = new Webhook(secretOf('default'));
    expect(() => hook.verify(got.body.replace('wf-1', 'wf-2'), headersOf(got))).toThrow();
    jest.useFakeTimers({ now: Date.now() + 10 * 60 * 1000 });
    try {
      expect(() => hook.verify(got.body, headersOf(got))).toThrow(/timestamp/i);
    } finally {
      jest.useRealTimers();
    }
  });

  it('are signed with their tenant\u2019s own secret: a callback to tenant B verifies with B\u2019s secret and not with A\u2019s, nor with the operator\u2019s', async () => {
    const toB = await send({}, 'tenant-b');
    expect(() => new Webhook(secretOf('tenant-b')).verify(toB.body, headersOf(toB))).not.toThrow();
    expect(() => new Webhook(secretOf('tenant-a')).verify(toB.body, headersOf(toB))).toThrow();
    expect(() => new Webhook(whsecOf(Buffer.from(SECRET))).verify(toB.body, headersOf(toB))).toThrow();
    // What tenant A signs (a forged callback made with A's secret) is refused by B's receiver.
    const toA = await send({}, 'tenant-a');
    expect(() => new Webhook(secretOf('tenant-b')).verify(toA.body, headersOf(toA))).toThrow();
    expect(secretOf('tenant-a')).not.toBe(secretOf('tenant-b'));
  });

  it('carry a signature for the previous secret too while it is set', async () => {
    const got = await send({ previousSigningSecret: PREVIOUS });
    expect(() =>
      new Webhook(tenantCallbackSecret(PREVIOUS, 'default')).verify(got.body, headersOf(got)),
    ).not.toThrow();
    expect(() => new Webhook(secretOf('default')).verify(got.body, headersOf(got))).not.toThrow();
  });

  it('carry the old X-Avatar-Signature, with the tenant\u2019s secret, only when CALLBACK_LEGACY_SIGNATURE is on', async () => {
    const got = await send({ legacySignature: true }, 'tenant-b');
    const header = got.headers['x-avatar-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyCallbackSignature(header, got.body, secretOf('tenant-b'))).toBe(true);
    expect(verifyCallbackSignature(header, got.body, secretOf('tenant-a'))).toBe(false);
  });
});

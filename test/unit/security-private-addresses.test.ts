import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createWebhookActivities } from '../../activities/webhook-activities';
import { callbackAttempt, UNUSED_STORE } from '../helpers/webhook-attempt';
import { CallbackTargetError, checkCallbackTarget } from '../../src/callbacks/callback-target';
import { resolveImageReference } from '../../src/images/image-access';
import { isPrivateAddress } from '../../src/outbound/private-address';
import { InputError } from '@avatar-pipeline/client/errors';

/** IPv6 spellings of loopback, private and metadata IPv4 addresses: private, as their IPv4 forms are. */
const HIDDEN_IPV4 = [
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:a9fe:a9fe', // 169.254.169.254, the cloud metadata address
  '::ffff:0:7f00:1', // IPv4-translated
  '::127.0.0.1', // IPv4-compatible
  '::a00:5',
  '64:ff9b::7f00:1', // NAT64
  '64:ff9b::169.254.169.254',
  '2002:7f00:1::', // 6to4
  '2002:c0a8:101::1',
  '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1
];

describe('isPrivateAddress decides by address bytes', () => {
  it.each(HIDDEN_IPV4)('%s is private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
    expect(isPrivateAddress(`[${address}]`)).toBe(true);
  });

  it.each([
    '::',
    '::1',
    'fe80::1%eth0',
    'fd12::1',
    'ff02::1',
    '0.0.0.0',
    '127.8.9.1',
    '100.100.0.1',
    '224.0.0.1',
  ])('%s is private', (address) => expect(isPrivateAddress(address)).toBe(true));

  // Ranges the IANA special-purpose registries mark as not globally reachable are private too
  // (192.0.2.2 can answer as the machine itself).
  it.each([
    '192.0.2.2', // TEST-NET-1
    '198.51.100.7', // TEST-NET-2
    '203.0.113.9', // TEST-NET-3
    '192.88.99.1', // 6to4 relay anycast
    '198.19.255.1', // benchmarking
    '255.255.255.255',
    '250.1.2.3',
    '2001:db8::1', // documentation
    '2001:db8:ffff::1',
    '3fff::1', // documentation
    '100::1', // discard-only
    '100::ffff:ffff:ffff:ffff',
    '2001:2::1', // benchmarking, inside 2001::/23
    '2001:10::1', // ORCHID
    '2001:1ff::1', // last of 2001::/23
    '2001:0:c000:201::1', // Teredo, with a public-looking server
    '5f00::1', // SRv6
    '4000::1', // unassigned, outside global unicast
    '::ffff:192.0.2.2',
    '64:ff9b::c633:6407', // NAT64 of 198.51.100.7
    '2002:cb00:7109::1', // 6to4 of 203.0.113.9
  ])('%s is not globally reachable, so refused', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
    if (address.includes(':')) expect(isPrivateAddress(`[${address}]`)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '2606:2800:220:1:248:1893:25c8:1946',
    '::ffff:93.184.216.34',
    '64:ff9b::8.8.8.8',
    '2002:5db8:d822::1',
    '192.0.3.1', // next to TEST-NET-1
    '198.51.99.1',
    '203.0.114.1',
    '192.88.100.1',
    '2001:200::1', // just past 2001::/23
    '2001:db9::1', // next to the documentation prefix
    '2606:4700:4700::1111',
    '::8.8.8.8',
  ])('%s is public', (address) => expect(isPrivateAddress(address)).toBe(false));
});

describe('callback and image URLs written with IPv6 forms of private IPv4 are refused', () => {
  it.each(HIDDEN_IPV4)('callbackUrl http://[%s]/hook', async (address) => {
    const err: unknown = await checkCallbackTarget(`http://[${address}]:9000/hook`, {
      privateHosts: [],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallbackTargetError);
    expect((err as CallbackTargetError).reason).toMatch(/private address/);
  });

  it.each(HIDDEN_IPV4)('a callback host resolving to %s', async (address) => {
    const err: unknown = await checkCallbackTarget(
      'https://hooks.example.com/x',
      { privateHosts: [] },
      async () => [{ address }],
    ).catch((e: unknown) => e);
    expect((err as CallbackTargetError).reason).toMatch(/resolves to a private address/);
  });

  it.each(HIDDEN_IPV4)('an image host resolving to %s', async (address) => {
    const err: unknown = await resolveImageReference(
      'https://images.example.com/a.png',
      { roots: [], urlHosts: ['images.example.com'], lookup: async () => [{ address, family: 6 }] },
      'images.0',
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues[0]?.message).toMatch(/resolves to a private address/);
  });
});

describe('end to end: no callback reaches a loopback listener through an IPv6 form', () => {
  let server: Server;
  let port: number;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => new Promise<void>((r) => server.close(() => r())));

  it('the listener is reachable at [::ffff:127.0.0.1] from here (so the refusals below mean something)', async () => {
    const before = hits;
    const response = await fetch(`http://[::ffff:127.0.0.1]:${port}/probe`);
    expect(response.status).toBe(204);
    expect(hits).toBe(before + 1);
  });

  it.each(['::ffff:127.0.0.1', '::ffff:7f00:1', '::127.0.0.1', '64:ff9b::127.0.0.1', '2002:7f00:1::'])(
    'a callback delivery to http://[%s]:port is refused without a request',
    async (address) => {
      const before = hits;
      const activities = createWebhookActivities({
        store: UNUSED_STORE,
        signingSecret: 'secret',
        privateHosts: [],
      });
      const err: unknown = await new MockActivityEnvironment()
        .run(activities.deliverWebhook, callbackAttempt(`http://[${address}]:${port}/hook`))
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ type: 'WebhookRefused', nonRetryable: true });
      expect(hits).toBe(before);
    },
  );
});

describe('a refusal names the host and the reason, never the address the host resolved to', () => {
  const INTERNAL = '10.20.30.40';
  const resolvesInside = async () => [
    { address: '93.184.216.34', family: 4 },
    { address: INTERNAL, family: 4 },
  ];

  it('callbackUrl', async () => {
    const err: unknown = await checkCallbackTarget(
      'https://hooks.example.com/x',
      { privateHosts: [] },
      resolvesInside,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallbackTargetError);
    const { reason, message } = err as CallbackTargetError;
    expect(reason).toContain('host "hooks.example.com" resolves to a private address');
    expect(`${reason} ${message}`).not.toContain(INTERNAL);
  });

  it('a selfie URL', async () => {
    const err: unknown = await resolveImageReference(
      'https://images.example.com/a.png',
      { roots: [], urlHosts: ['images.example.com'], lookup: resolvesInside },
      'images.0',
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    const { issues, message } = err as InputError;
    expect(issues[0]).toMatchObject({
      path: 'images.0',
      message: expect.stringContaining('host "images.example.com" resolves to a private address'),
    });
    expect(JSON.stringify({ issues, message })).not.toContain(INTERNAL);
  });
});

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createWebhookActivities } from '../../activities/webhook-activities';
import { callbackAttempt, UNUSED_STORE } from '../helpers/webhook-attempt';
import { pinnedFetch } from '../../src/outbound/checked-fetch';
import { readImage } from '../../src/images/read-image';
import { syntheticSelfiePng } from '../../src/samples/synthetic-selfie';

/*
 * DNS rebinding: the address that was checked is the address connected to. Each test gives a
 * resolver for the check that differs from what the system resolver says for the same name, as a
 * rebinding DNS server would between the check and the connection.
 */

let server: Server;
let port: number;
const seen: IncomingHttpHeaders[] = [];
const png = syntheticSelfiePng(1, 16);

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    if (req.method === 'GET') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else res.writeHead(204).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  seen.length = 0;
});

describe('callback delivery connects to the checked address', () => {
  it('a name checked as public but answering loopback at connect time never reaches the loopback listener', async () => {
    // The check hears a public address (example.com's); the system resolver would say
    // 127.0.0.1 for "localhost". A delivery that resolved again would land on the listener.
    const activities = createWebhookActivities({
      store: UNUSED_STORE,
      signingSecret: 'secret',
      privateHosts: [],
      timeoutMs: 1_000,
      lookup: async () => [{ address: '93.184.216.34', family: 4 }],
    });
    await expect(
      new MockActivityEnvironment().run(
        activities.deliverWebhook,
        callbackAttempt(`http://localhost:${port}/hook`),
      ),
    ).rejects.toThrow();
    expect(seen).toEqual([]);
  });

  it('pinnedFetch connects to the given address whatever the name resolves to, keeping the name as Host', async () => {
    const status = await pinnedFetch(
      new URL(`http://hooks.pinned.test:${port}/hook`),
      [{ address: '127.0.0.1', family: 4 }],
      { method: 'POST', body: '{}' },
      async (response) => response.status,
    );
    expect(status).toBe(204);
    expect(seen.map((h) => h.host)).toEqual([`hooks.pinned.test:${port}`]);
  });
});

describe('image downloads connect to the checked address', () => {
  it('downloads from the address the check resolved, not from a fresh lookup of the name', async () => {
    // "selfies.pinned.test" has no DNS entry: only the check's resolver knows it. The address is
    // listed, so it may be private.
    const bytes = await readImage(`http://selfies.pinned.test:${port}/a.png`, {
      roots: [],
      urlHosts: ['selfies.pinned.test', '127.0.0.1'],
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(bytes).toEqual(png);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.host).toBe(`selfies.pinned.test:${port}`);
  });

  it('a name checked as public but answering loopback at connect time is not downloaded from', async () => {
    await expect(
      readImage(
        `http://localhost:${port}/a.png`,
        {
          roots: [],
          urlHosts: ['localhost'],
          lookup: async () => [{ address: '93.184.216.34', family: 4 }],
        },
        { timeoutMs: 1_000 },
      ),
    ).rejects.toThrow();
    expect(seen).toEqual([]);
  });
});

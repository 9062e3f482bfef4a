import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { call } from './support/provider-http';

describe('simulator rate limit', () => {
  let sim: RunningSimulator;
  let now = 1_000_000;
  beforeAll(async () => {
    sim = await startSimulator({ clock: () => now, rateLimit: { requestsPerSecond: 2, burst: 3 } });
  });
  afterAll(() => sim.stop());

  it('answers 429 with Retry-After once the burst is used, and recovers as the clock moves', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await call(sim, 'GET', '/styles/list')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);

    const limited = await call(sim, 'GET', '/order/list');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.json).toEqual({ status: 'error', message: expect.stringContaining('rate limit') });

    now += 500; // half a second refills one token at 2 per second
    expect((await call(sim, 'GET', '/styles/list')).status).toBe(200);
    expect((await call(sim, 'GET', '/styles/list')).status).toBe(429);

    const stats = sim.stats();
    expect(stats.rateLimited).toBe(3);
    expect(stats.requests.byStatus['429']).toBe(3);
  });

  it('counts requests without a valid key against the limit too, and uses a fixed Retry-After when set', async () => {
    sim.setOptions({ rateLimit: { requestsPerSecond: 1, burst: 1, retryAfterSeconds: 7 } });
    expect((await call(sim, 'GET', '/styles/list', { apiKey: 'wrong' })).status).toBe(401);
    const limited = await call(sim, 'GET', '/styles/list');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    sim.setOptions({ rateLimit: null });
    expect((await call(sim, 'GET', '/styles/list')).status).toBe(200);
  });

  it('models a shared key: another client takes its requests from the same bucket, and is refused when it is empty', async () => {
    // 10/s with another client at 4/s: 6/s are left for ours.
    sim.setOptions({ rateLimit: { requestsPerSecond: 10, burst: 10, sharedRps: 4 } });
    const ours = { accepted: 0, limited: 0 };
    const send = async () => {
      const { status } = await call(sim, 'GET', '/styles/list');
      if (status === 429) ours.limited++;
      else ours.accepted++;
    };
    // 6/s for 10 s: within what is left, so neither client is refused (beyond the first instant's burst).
    for (let i = 0; i < 60; i++) {
      now += 1000 / 6;
      await send();
    }
    const polite = sim.stats().sharedClient!;
    expect(ours.limited).toBe(0);
    expect(polite.requests).toBeGreaterThanOrEqual(40);
    expect(polite.rateLimited).toBe(0);
    // 10/s for 10 s: more than is left, and the other client gets 429s too.
    for (let i = 0; i < 100; i++) {
      now += 100;
      await send();
    }
    const greedy = sim.stats().sharedClient!;
    // 100 + 40 requests for 100 tokens and a burst of at most 10: about 30 refused, on both sides.
    expect(ours.limited).toBeGreaterThan(5);
    expect(greedy.rateLimited).toBeGreaterThan(5);
    expect(ours.limited + greedy.rateLimited).toBeGreaterThanOrEqual(25);
    // The quota changes while the other client keeps sending; its counts carry over.
    sim.setOptions({ rateLimit: { requestsPerSecond: 5, sharedRps: 4 } });
    expect(sim.stats().sharedClient!.requests).toBeGreaterThanOrEqual(greedy.requests);
    sim.setOptions({ rateLimit: null });
  });
});

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
});

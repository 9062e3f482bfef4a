import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { call } from './support/provider-http';

describe('simulator authentication', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ apiKey: 'secret-key' });
  });
  afterAll(() => sim.stop());

  it('refuses a request without the Authorization header with 401', async () => {
    const answer = await call(sim, 'GET', '/styles/list', { apiKey: null });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    expect(answer.json).toEqual({ status: 'error', message: expect.stringContaining('missing') });
  });

  it('refuses a wrong key with 401 and performs nothing', async () => {
    const answer = await call(sim, 'POST', '/order/create/model', {
      apiKey: 'sim-key',
      body: { styles: [3], gender: 1 },
    });
    expect(answer.status).toBe(401);
    expect(sim.stats().totals.modelsCreated).toBe(0);
  });

  it('accepts the configured key', async () => {
    expect((await call(sim, 'GET', '/styles/list', { apiKey: 'secret-key' })).status).toBe(200);
  });

  it('answers 401 in the variant error shape in the variant dialect', async () => {
    sim.setOptions({ dialect: 'variant' });
    try {
      const answer = await call(sim, 'GET', '/order/list', { apiKey: 'nope' });
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ error: 'invalid API key' });
    } finally {
      sim.setOptions({ dialect: 'contract' });
    }
  });
});

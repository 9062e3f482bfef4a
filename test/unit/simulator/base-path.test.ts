import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { call, callOk } from './support/provider-http';

describe('simulator base path', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ basePath: 'rest/api/' });
  });
  afterAll(() => sim.stop());

  it('serves every endpoint below the prefix and includes it in url', async () => {
    expect(sim.url).toBe(`${sim.origin}/rest/api`);
    expect(await callOk<unknown[]>(sim, 'GET', '/styles/list')).toHaveLength(8);
  });

  it('answers 404 for endpoint paths without the prefix (a client that dropped it)', async () => {
    const answer = await call({ url: sim.origin }, 'GET', '/styles/list');
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ status: 'error', message: expect.stringContaining('/rest/api') });
  });

  it('writes the prefix into image URLs', async () => {
    const [style] = await callOk<Array<{ preview: string }>>(sim, 'GET', '/styles/list');
    expect(style?.preview).toMatch(new RegExp(`^${sim.origin}/rest/api/__sim/styles/\\d+/preview\\.png$`));
  });

  it('serves the simulator controls below the prefix and at the root', async () => {
    expect((await fetch(`${sim.url}/__sim/health`)).status).toBe(200);
    expect((await fetch(`${sim.origin}/__sim/health`)).status).toBe(200);
  });

  it('refuses a base path that is not a plain path', async () => {
    await expect(startSimulator({ basePath: '/rest api' })).rejects.toThrow(
      /basePath: must be a path like \/rest\/api/,
    );
  });
});

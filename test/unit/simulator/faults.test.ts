import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { call, callOk } from './support/provider-http';
import { createModelWithSelfie } from './support/scenario';

const MODEL = { styles: [3], gender: 1 };

describe('simulator faults', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ progression: { mode: 'calls', trainingCalls: 1, generationCalls: 1 } });
  });
  afterAll(() => sim.stop());
  beforeEach(() => {
    sim.setOptions({
      fail5xxRate: 0,
      htmlErrorShare: 0,
      emptyErrorShare: 0,
      loseResponseRate: 0,
      malformedJsonRate: 0,
      slowRate: 0,
      faultEndpoints: null,
      seed: 1,
    });
    sim.reset();
  });

  it('answers 5xx with a JSON error body without performing the request', async () => {
    sim.setOptions({ fail5xxRate: 1 });
    const answer = await call(sim, 'POST', '/order/create/model', { body: MODEL });
    expect([500, 502, 503]).toContain(answer.status);
    expect(answer.json).toEqual({ status: 'error', message: expect.any(String) });
    expect(sim.stats().totals.modelsCreated).toBe(0);
    expect(sim.stats().faults.serverErrors).toBe(1);
  });

  it('answers 5xx with a gateway HTML page or an empty body in the configured shares', async () => {
    sim.setOptions({ fail5xxRate: 1, htmlErrorShare: 1 });
    const html = await call(sim, 'GET', '/order/list');
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(html.text).toMatch(/^<html>.*<h1>50[023] /s);
    sim.setOptions({ htmlErrorShare: 0, emptyErrorShare: 1 });
    const empty = await call(sim, 'GET', '/order/list');
    expect(empty.status).toBeGreaterThanOrEqual(500);
    expect(empty.text).toBe('');
  });

  it('mixes the 5xx statuses and replays the same pattern for the same seed', async () => {
    sim.setOptions({ fail5xxRate: 0.5, seed: 42 });
    const pattern = async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 30; i += 1) statuses.push((await call(sim, 'GET', '/styles/list')).status);
      return statuses;
    };
    const first = await pattern();
    sim.reset();
    const second = await pattern();
    expect(second).toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 500, 502, 503]));
  });

  it('commits a write whose response it then loses, which the stats show', async () => {
    sim.setOptions({ loseResponseRate: 1 });
    await expect(
      fetch(`${sim.url}/order/create/model`, {
        method: 'POST',
        headers: { Authorization: 'Bearer sim-key', 'Content-Type': 'application/json' },
        body: JSON.stringify(MODEL),
      }),
    ).rejects.toThrow();
    // Reads are never lost: the client can reconcile.
    const orders = await callOk<Array<{ id: number }>>(sim, 'GET', '/order/list');
    expect(orders).toHaveLength(1);
    const stats = sim.stats();
    expect(stats.totals.modelsCreated).toBe(1);
    expect(stats.faults.lostResponses).toBe(1);
    expect(stats.requests.byEndpoint.createModel).toBe(1);
  });

  it('loses the answer of an accepted run after the order has started', async () => {
    const modelId = await createModelWithSelfie(sim);
    sim.setOptions({ loseResponseRate: 1 });
    await expect(call(sim, 'GET', `/order/${modelId}/run`)).rejects.toThrow();
    sim.setOptions({ loseResponseRate: 0 });
    expect(sim.stats().orders[0]).toEqual(expect.objectContaining({ runs: 1, status: 'STARTED' }));
    // A blind retry is refused: the run must not happen twice.
    expect((await call(sim, 'GET', `/order/${modelId}/run`)).status).toBe(409);
  });

  it('sends a truncated JSON body with status 200 after committing the write', async () => {
    sim.setOptions({ malformedJsonRate: 1 });
    const answer = await call(sim, 'POST', '/order/create/model', { body: MODEL });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/application\/json/);
    expect(answer.json).toBeUndefined();
    expect(() => JSON.parse(answer.text)).toThrow();
    expect(answer.text.startsWith('{"id":')).toBe(true);
    expect(sim.stats().totals.modelsCreated).toBe(1);
  });

  it('answers late when a request is slow', async () => {
    sim.setOptions({ slowRate: 1, slowMs: 150 });
    const started = Date.now();
    expect((await call(sim, 'GET', '/styles/list')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(sim.stats().faults.slowResponses).toBe(1);
  });

  it('limits faults to the listed endpoints', async () => {
    sim.setOptions({ fail5xxRate: 1, faultEndpoints: ['createModel'] });
    expect((await call(sim, 'GET', '/styles/list')).status).toBe(200);
    expect((await call(sim, 'POST', '/order/create/model', { body: MODEL })).status).toBeGreaterThanOrEqual(
      500,
    );
  });

  it('never applies faults to the simulator controls', async () => {
    sim.setOptions({ fail5xxRate: 1, loseResponseRate: 1, malformedJsonRate: 1 });
    const stats = await fetch(`${sim.url}/__sim/stats`);
    expect(stats.status).toBe(200);
    expect(await stats.json()).toEqual(expect.objectContaining({ totals: expect.any(Object) }));
  });

  it('refuses an invalid fault rate, naming the option, and keeps the old knobs', () => {
    expect(() => sim.setOptions({ fail5xxRate: 2 })).toThrow(/fail5xxRate: must be between 0 and 1/);
    expect(() => sim.setOptions({ faultEndpoints: ['nope' as 'createModel'] })).toThrow(/faultEndpoints/);
  });
});

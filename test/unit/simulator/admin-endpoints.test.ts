import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { simulatorStatsSchema, startSimulator, type RunningSimulator } from '../../../src/simulator';
import { temporaryDirectory } from '../../helpers/temp-dir';
import { call, callOk } from './support/provider-http';
import { createModelWithSelfie } from './support/scenario';

describe('simulator controls under /__sim', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ basePath: '/rest/api' });
  });
  afterAll(() => sim.stop());
  beforeEach(() => sim.reset());

  const admin = (method: 'GET' | 'POST', path: string, body?: unknown) =>
    fetch(`${sim.url}/__sim${path}`, {
      method,
      headers: method === 'POST' ? { 'Content-Type': 'application/json' } : {},
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('reports stats as JSON without authentication, matching the exported schema', async () => {
    const modelId = await createModelWithSelfie(sim);
    await call(sim, 'GET', `/order/${modelId}/run`);
    await call(sim, 'GET', `/order/${modelId}/run`);
    await call(sim, 'GET', '/styles/list', { apiKey: 'wrong' });
    const res = await admin('GET', '/stats');
    expect(res.status).toBe(200);
    const stats = simulatorStatsSchema.parse(await res.json());
    expect(stats.requests.total).toBe(5);
    expect(stats.requests.byEndpoint).toEqual({
      createModel: 1,
      uploadTrainingImage: 1,
      runOrder: 2,
      listStyles: 1,
    });
    expect(stats.requests.byStatus).toEqual({ '200': 3, '409': 1, '401': 1 });
    expect(stats.orders).toEqual([
      {
        id: modelId,
        parent: 0,
        kind: 'model',
        styles: [3],
        gender: 1,
        status: 'STARTED',
        uploads: 1,
        runs: 1,
        runAttempts: 2,
        selects: 0,
        statusCalls: 0,
      },
    ]);
    expect(stats.totals).toEqual({
      modelsCreated: 1,
      generationOrdersCreated: 0,
      uploads: 1,
      runs: 1,
      runAttempts: 2,
      selects: 0,
      statusCalls: 0,
    });
    // The same numbers in-process.
    expect(sim.stats()).toEqual(stats);
  });

  it('changes knobs live with POST /__sim/options and refuses bad values naming the option', async () => {
    const changed = await admin('POST', '/options', { dialect: 'variant', pageSize: 2 });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual(expect.objectContaining({ dialect: 'variant', pageSize: 2 }));
    const styles = await callOk<Record<string, unknown>>(sim, 'GET', '/styles/list');
    expect(styles).toHaveProperty('data');

    const refused = await admin('POST', '/options', { pageSize: 0, progression: { mode: 'sometimes' } });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: string };
    expect(body.error).toMatch(/pageSize: must be at least 1/);
    expect(body.error).toMatch(/progression/);
    const current = (await (await admin('GET', '/options')).json()) as { pageSize: number; dialect: string };
    expect(current).toEqual(expect.objectContaining({ pageSize: 2, dialect: 'variant' }));

    await admin('POST', '/options', { dialect: 'contract', pageSize: 4 });
  });

  // Avatars per order and per page are bounded: 10^8 of either is refused.
  it.each([
    [{ pageSize: 100_000_000 }, /pageSize: must be at most 5000/],
    [{ avatarsPerOrder: 100_000_000 }, /avatarsPerOrder: must be at most 5000/],
  ])('refuses %j with 400 naming the option', async (patch, reason) => {
    const refused = await admin('POST', '/options', patch);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(reason);
    const current = (await (await admin('GET', '/options')).json()) as Record<string, number>;
    expect(current).toEqual(expect.objectContaining({ pageSize: 4, avatarsPerOrder: 8 }));
  });

  /** A control request with its own Host header (fetch does not let one set it). */
  const withHost = (host: string, method: 'GET' | 'POST', path: string) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${sim.url}/__sim${path}`,
        {
          method,
          agent: false,
          headers: { host, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(method === 'POST' ? '{}' : undefined);
    });

  // A page on a rebinding host name must not reset the simulator from a browser.
  it('without an admin token, refuses controls addressed to a foreign Host (DNS rebinding)', async () => {
    await createModelWithSelfie(sim);
    expect(await withHost('attacker.example:4010', 'POST', '/reset')).toBe(403);
    expect(await withHost('attacker.example', 'GET', '/stats')).toBe(403);
    expect(sim.stats().totals.modelsCreated).toBe(1);
    for (const host of ['localhost:4010', '127.0.0.1', '[::1]:8080', 'LOCALHOST'])
      expect(await withHost(host, 'GET', '/stats')).toBe(200);
    // Health is public whatever the Host.
    expect(await withHost('attacker.example', 'GET', '/health')).toBe(200);
  });

  it('forgets everything with POST /__sim/reset and starts ids afresh', async () => {
    const first = await createModelWithSelfie(sim);
    const res = await admin('POST', '/reset');
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(await callOk<unknown[]>(sim, 'GET', '/order/list')).toEqual([]);
    expect(sim.stats().requests.total).toBe(1);
    expect(await createModelWithSelfie(sim)).toBe(first);
  });

  it('answers health checks and 404 for unknown controls', async () => {
    expect(await (await admin('GET', '/health')).json()).toEqual({ status: 'ok' });
    expect((await admin('GET', '/nothing')).status).toBe(404);
    expect((await admin('GET', '/reset')).status).toBe(405);
  });

  it('never shows the provider key, and refuses to move the state file or take a text/plain body', async () => {
    const shown = (await (await admin('GET', '/options')).json()) as Record<string, unknown>;
    expect(shown).not.toHaveProperty('apiKey');
    expect(JSON.stringify(shown)).not.toContain('sim-key');
    const target = join(temporaryDirectory('sim-admin-'), 'victim.json');
    const moved = await admin('POST', '/options', { stateFile: target });
    expect(moved.status).toBe(400);
    expect(((await moved.json()) as { error: string }).error).toMatch(
      /stateFile: fixed when the simulator starts/,
    );
    expect(existsSync(target)).toBe(false);
    const plain = await fetch(`${sim.url}/__sim/options`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: JSON.stringify({ fail5xxRate: 1 }),
    });
    expect(plain.status).toBe(415);
    expect(((await (await admin('GET', '/options')).json()) as { fail5xxRate: number }).fail5xxRate).toBe(0);
  });
});

describe('simulator controls with an admin token', () => {
  const token = 'sim-admin-token-0123456789';
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ adminToken: token });
  });
  afterAll(() => sim.stop());

  it('answer only the token; health and images stay public', async () => {
    expect((await fetch(`${sim.url}/__sim/stats`)).status).toBe(401);
    const wrong = await fetch(`${sim.url}/__sim/reset`, {
      method: 'POST',
      headers: { authorization: 'Bearer sim-admin-token-wrong', 'content-type': 'application/json' },
    });
    expect(wrong.status).toBe(401);
    const ok = await fetch(`${sim.url}/__sim/stats`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    const options = (await (
      await fetch(`${sim.url}/__sim/options`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as Record<string, unknown>;
    expect(options).not.toHaveProperty('adminToken');
    expect((await fetch(`${sim.url}/__sim/health`)).status).toBe(200);
  });
});

import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { call, callOk } from './support/provider-http';
import { finishedGeneration, trainedModel } from './support/scenario';

describe('simulator avatar pagination', () => {
  let sim: RunningSimulator;
  let orderId: number;
  beforeAll(async () => {
    sim = await startSimulator({
      progression: { mode: 'calls', trainingCalls: 1, generationCalls: 1 },
      avatarsPerOrder: 5,
      pageSize: 2,
    });
    orderId = await finishedGeneration(sim, await trainedModel(sim), [3, 5]);
  });
  afterAll(() => sim.stop());

  const page = async (index: number) =>
    (await callOk<Array<{ avatar_id: number }>>(sim, 'GET', `/model/${orderId}/avatars/${index}`)).map(
      (a) => a.avatar_id,
    );

  it('starts at page 1 by default and ends with an empty page', async () => {
    const pages = [await page(1), await page(2), await page(3), await page(4)];
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1, 0]);
    expect(new Set(pages.flat()).size).toBe(5);
    expect(await page(0)).toEqual([]);
    expect(await page(99)).toEqual([]);
  });

  it('starts at page 0 when configured, with the same avatars in the same order', async () => {
    const fromOne = [await page(1), await page(2), await page(3)].flat();
    sim.setOptions({ firstPage: 0 });
    try {
      const fromZero = [await page(0), await page(1), await page(2)].flat();
      expect(fromZero).toEqual(fromOne);
      expect(await page(3)).toEqual([]);
    } finally {
      sim.setOptions({ firstPage: 1 });
    }
  });

  it('answers 404 for a page before the first when pageBeforeFirst is error', async () => {
    sim.setOptions({ pageBeforeFirst: 'error' });
    try {
      const answer = await call(sim, 'GET', `/model/${orderId}/avatars/0`);
      expect(answer.status).toBe(404);
      expect(answer.json).toEqual({ status: 'error', message: expect.stringContaining('pages start at 1') });
      expect((await call(sim, 'GET', `/model/${orderId}/avatars/-1`)).status).toBe(404);
    } finally {
      sim.setOptions({ pageBeforeFirst: 'empty' });
    }
  });

  it('cycles the order styles over its avatars', async () => {
    // Avatars alternate between the two styles; their images therefore differ.
    const urls = (await callOk<Array<{ image_url: string }>>(sim, 'GET', `/model/${orderId}/avatars/1`)).map(
      (a) => a.image_url,
    );
    const [a, b] = await Promise.all(
      urls.map(async (url) => Buffer.from(await (await fetch(url)).arrayBuffer())),
    );
    expect(a?.equals(b ?? Buffer.alloc(0))).toBe(false);
  });
});

import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { call, callOk } from './support/provider-http';
import {
  createModelWithSelfie,
  finishedGeneration,
  pollUntilFinished,
  trainedModel,
} from './support/scenario';

type Status = { id: number; status: string; progress?: number; message: string };

describe('simulator status progression', () => {
  describe('calls mode', () => {
    let sim: RunningSimulator;
    beforeAll(async () => {
      sim = await startSimulator({ progression: { mode: 'calls', trainingCalls: 4, generationCalls: 2 } });
    });
    afterAll(() => sim.stop());

    it('moves one step per status call and finishes on the N-th', async () => {
      const modelId = await createModelWithSelfie(sim);
      const before = await callOk<Status>(sim, 'GET', `/order/${modelId}/status`);
      expect(before).toEqual(expect.objectContaining({ status: 'CREATED', progress: 0 }));
      await callOk(sim, 'GET', `/order/${modelId}/run`);
      const seen: Array<[string, number | undefined]> = [];
      for (let i = 0; i < 5; i += 1) {
        const status = await callOk<Status>(sim, 'GET', `/order/${modelId}/status`);
        seen.push([status.status, status.progress]);
      }
      expect(seen).toEqual([
        ['IN_PROGRESS', 25],
        ['IN_PROGRESS', 50],
        ['IN_PROGRESS', 75],
        ['DONE', 100],
        ['DONE', 100],
      ]);
    });

    it('does not advance orders on list calls, only on their own status calls', async () => {
      const modelId = await createModelWithSelfie(sim);
      await callOk(sim, 'GET', `/order/${modelId}/run`);
      for (let i = 0; i < 5; i += 1) await callOk(sim, 'GET', '/order/list');
      const status = await callOk<Status>(sim, 'GET', `/order/${modelId}/status`);
      expect(status.status).toBe('IN_PROGRESS');
    });

    it('ends training in ERROR with the provider message when trainingOutcome is ERROR', async () => {
      sim.setOptions({ trainingOutcome: 'ERROR' });
      try {
        const modelId = await createModelWithSelfie(sim);
        await callOk(sim, 'GET', `/order/${modelId}/run`);
        expect(await pollUntilFinished(sim, modelId)).toBe('ERROR');
        const status = await callOk<Status>(sim, 'GET', `/order/${modelId}/status`);
        expect(status.message).toMatch(/training failed/);
        const child = await call(sim, 'POST', '/order/create', {
          body: { styles: [3], gender: 1, parent: modelId },
        });
        expect(child.status).toBe(409);
      } finally {
        sim.setOptions({ trainingOutcome: 'DONE' });
      }
    });

    it('ends a generation order in ERROR when it asks for a failing style', async () => {
      sim.setOptions({ failStyles: [7] });
      try {
        const modelId = await trainedModel(sim);
        const failing = await finishedGeneration(sim, modelId, [3, 7]);
        const passing = await finishedGeneration(sim, modelId, [3]);
        const status = await callOk<Status>(sim, 'GET', `/order/${failing}/status`);
        expect(status).toEqual(
          expect.objectContaining({ status: 'ERROR', message: expect.stringContaining('style 7') }),
        );
        expect((await callOk<Status>(sim, 'GET', `/order/${passing}/status`)).status).toBe('DONE');
        expect((await call(sim, 'GET', `/model/${failing}/avatars/1`)).status).toBe(409);
      } finally {
        sim.setOptions({ failStyles: [] });
      }
    });

    it('leaves progress out when reportProgress is off', async () => {
      sim.setOptions({ reportProgress: false });
      try {
        const modelId = await createModelWithSelfie(sim);
        const status = await callOk<Status>(sim, 'GET', `/order/${modelId}/status`);
        expect(status).not.toHaveProperty('progress');
        expect(status.message).toEqual(expect.any(String));
      } finally {
        sim.setOptions({ reportProgress: true });
      }
    });
  });

  describe('wall mode with an injected clock', () => {
    let sim: RunningSimulator;
    let now = 1_700_000_000_000;
    beforeAll(async () => {
      sim = await startSimulator({
        clock: () => now,
        progression: { mode: 'wall', trainingMs: 10 * 60_000, generationMs: 60_000 },
      });
    });
    afterAll(() => sim.stop());

    it('finishes training when ten simulated minutes have passed, however few real ones did', async () => {
      const modelId = await createModelWithSelfie(sim);
      await callOk(sim, 'GET', `/order/${modelId}/run`);
      const at = async (minutes: number) => {
        now = 1_700_000_000_000 + minutes * 60_000;
        return callOk<Status>(sim, 'GET', `/order/${modelId}/status`);
      };
      // The run happened at minute 0 of the clock as set before it.
      expect(await at(0)).toEqual(expect.objectContaining({ status: 'STARTED', progress: 0 }));
      expect(await at(5)).toEqual(expect.objectContaining({ status: 'IN_PROGRESS', progress: 50 }));
      expect(await at(9.99)).toEqual(expect.objectContaining({ status: 'IN_PROGRESS', progress: 99 }));
      expect(await at(10)).toEqual(expect.objectContaining({ status: 'DONE', progress: 100 }));
      // Lists see the same clock.
      const models = await callOk<Array<{ id: number; status: string }>>(sim, 'GET', '/model/list');
      expect(models.find((m) => m.id === modelId)?.status).toBe('DONE');
    });

    it('keeps the timing an order was run with when the knobs change later', async () => {
      now = 1_800_000_000_000;
      const modelId = await createModelWithSelfie(sim);
      await callOk(sim, 'GET', `/order/${modelId}/run`);
      sim.setOptions({ progression: { mode: 'wall', trainingMs: 1 } });
      now += 60_000;
      expect((await callOk<Status>(sim, 'GET', `/order/${modelId}/status`)).status).toBe('IN_PROGRESS');
      sim.setOptions({ progression: { mode: 'wall', trainingMs: 10 * 60_000, generationMs: 60_000 } });
    });
  });
});

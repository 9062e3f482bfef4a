import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../../../src/simulator';
import { callOk } from './support/provider-http';
import { createModelWithSelfie } from './support/scenario';
import { jpegSelfie } from './support/selfies';

describe('simulator state file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sim-state-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('answers as before after a restart: orders, counters, selfies and id sequence', async () => {
    const stateFile = join(dir, 'state.json');
    const options = { stateFile, progression: { mode: 'calls' as const, trainingCalls: 3 } };
    const first = await startSimulator(options);
    const modelId = await createModelWithSelfie(first);
    await callOk(first, 'GET', `/order/${modelId}/run`);
    await callOk(first, 'GET', `/order/${modelId}/status`);
    await first.stop();

    const second = await startSimulator(options);
    try {
      const [image] = await callOk<Array<{ image_url: string }>>(
        second,
        'GET',
        `/order/${modelId}/training-images/list`,
      );
      expect(
        Buffer.from(await (await fetch(image?.image_url ?? '')).arrayBuffer()).equals(jpegSelfie()),
      ).toBe(true);
      expect(second.stats().orders).toEqual([
        expect.objectContaining({ id: modelId, uploads: 1, runs: 1, statusCalls: 1, status: 'IN_PROGRESS' }),
      ]);
      // The run continues where it was: two more status calls finish it.
      await callOk(second, 'GET', `/order/${modelId}/status`);
      expect((await callOk<{ status: string }>(second, 'GET', `/order/${modelId}/status`)).status).toBe(
        'DONE',
      );
      const next = await callOk<{ id: number }>(second, 'POST', '/order/create/model', {
        styles: [3],
        gender: 1,
      });
      expect(next.id).toBeGreaterThan(modelId);
    } finally {
      await second.stop();
    }
  });

  it('refuses to start from a file that is not a simulator state, naming it', async () => {
    const stateFile = join(dir, 'broken.json');
    writeFileSync(stateFile, '{"orders": 3}');
    await expect(startSimulator({ stateFile })).rejects.toThrow(
      /stateFile .*broken\.json: not a simulator state file/,
    );
  });
});

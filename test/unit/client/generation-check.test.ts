import { checkGenerationTarget } from '@avatar-pipeline/client/client/generation-check';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { callOk } from '../simulator/support/provider-http';
import { createModelWithSelfie, finishedGeneration, trainedModel } from '../simulator/support/scenario';
import { InputError } from '@avatar-pipeline/client/errors';

describe('checkGenerationTarget: may avatars be generated under this model?', () => {
  let sim: RunningSimulator;
  let provider: ProviderClient;
  let trained: number;
  let untrained: number;
  let generation: number;

  beforeAll(async () => {
    sim = await startSimulator({ progression: { mode: 'calls', trainingCalls: 1, generationCalls: 1 } });
    provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 5_000 });
    trained = await trainedModel(sim, 1);
    untrained = await createModelWithSelfie(sim, 1);
    generation = await finishedGeneration(sim, trained, [3]);
  });
  afterAll(() => sim?.stop());

  async function refusal(target: Parameters<typeof checkGenerationTarget>[1]) {
    const err = await checkGenerationTarget(provider, target).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    return (err as InputError).issues;
  }

  it('accepts a DONE model of the gender with offered styles, and answers the model', async () => {
    const model = await checkGenerationTarget(provider, { modelId: trained, gender: 1, styles: [5, 7] });
    expect(model).toMatchObject({ modelId: trained, status: 'DONE', gender: 1 });
  });

  it.each([
    [
      'an unknown model',
      () => ({ modelId: 9999, gender: 1 as const, styles: [3] }),
      'modelId',
      'the provider has no model 9999',
    ],
    [
      'a generation order',
      () => ({ modelId: generation, gender: 1 as const, styles: [3] }),
      'modelId',
      `is a generation order under model`,
    ],
    [
      'a model not yet DONE',
      () => ({ modelId: untrained, gender: 1 as const, styles: [3] }),
      'modelId',
      'is not trained yet (status CREATED)',
    ],
    [
      'a model of the other gender',
      () => ({ modelId: trained, gender: 2 as const, styles: [3] }),
      'gender',
      'was trained for gender 1 (woman), not 2 (man)',
    ],
    [
      'an unknown style',
      () => ({ modelId: trained, gender: 1 as const, styles: [3, 4] }),
      'styles.1',
      'style 4 is not offered',
    ],
  ])('refuses %s, naming the field', async (_case, target, path, message) => {
    const issues = await refusal(target());
    expect(issues).toEqual([{ path, message: expect.stringContaining(message) }]);
  });

  it('reports every problem at once and sends nothing to the provider but reads', async () => {
    const before = sim.stats().totals;
    const issues = await refusal({ modelId: untrained, gender: 2, styles: [4] });
    expect(issues.map((i) => i.path)).toEqual(['modelId', 'gender', 'styles.0']);
    expect(sim.stats().totals).toEqual(before);
    expect(await callOk<unknown[]>(sim, 'GET', `/model/${untrained}/order/list`)).toEqual([]);
  });
});

import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { uniqueBasePath } from '../helpers/e2e-pipeline';
import { runCli } from '../helpers/run-cli';
import { requireCompiledCli } from '../helpers/worker-process';
import { finishedGeneration, trainedModel } from '../unit/simulator/support/scenario';

describe('avatar-pipeline models and orders (read from the provider)', () => {
  let sim: RunningSimulator;
  let model: number;
  let order: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    requireCompiledCli();
    sim = await startSimulator({
      basePath: uniqueBasePath('cli-models'),
      progression: { mode: 'calls', trainingCalls: 1, generationCalls: 1 },
    });
    model = await trainedModel(sim);
    order = await finishedGeneration(sim, model, [5]);
    env = { PROVIDER_BASE_URL: sim.url, PROVIDER_API_KEY: 'sim-key' };
  });
  afterAll(() => sim?.stop());

  it('models --json prints the models with their status, exit 0', async () => {
    const outcome = await runCli(['models', '--json'], env);
    expect(outcome.code).toBe(0);
    expect(JSON.parse(outcome.stdout)).toEqual([
      expect.objectContaining({ modelId: model, status: 'DONE', gender: 1 }),
    ]);
  });

  it('orders --model <id> --json prints that model’s generation orders; plain output names them', async () => {
    const json = await runCli(['orders', '--model', String(model), '--json'], env);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ orderId: order, modelId: model, status: 'DONE', styles: [5] }),
    ]);
    const plain = await runCli(['orders'], env);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(`order ${String(order).padStart(6)}  DONE`);
    expect(plain.stdout).toContain(`under model ${model}`);
  });

  it.each([
    [
      'a generation order',
      () => String(order),
      () => `is a generation order under model ${model}, not a model`,
    ],
    ['an unknown id', () => '4242', () => 'the provider has no model 4242'],
    ['an id that is not a number', () => 'x1', () => 'must be a positive integer'],
  ])('orders --model with %s: exit 2 naming --model', async (_case, id, message) => {
    const outcome = await runCli(['orders', '--model', id(), '--json'], env);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toContain('--model');
    expect(outcome.stderr).toContain(message());
  });

  it('a provider that refuses the key: exit 1, the key never printed', async () => {
    const outcome = await runCli(['models'], { ...env, PROVIDER_API_KEY: 'not-the-key-31337' });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr + outcome.stdout).not.toContain('not-the-key-31337');
  });
});

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startTraining } from '@avatar-pipeline/client/client/model-runs';
import { getPipeline } from '@avatar-pipeline/client/client/pipelines';
import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { ModelIdAttribute } from '@avatar-pipeline/client/contracts/search-attributes';
import { FAST_POLLING } from '../helpers/e2e-pipeline';
import { startInProcessStack, type InProcessStack } from '../helpers/in-process-stack';
import { runCli } from '../helpers/run-cli';
import { devServerUnderTest, uniqueName } from '../helpers/temporal-env';
import { openEventStream } from '../helpers/sse-client';
import { requireCompiledCli } from '../helpers/worker-process';

const TOKEN = 'models-e2e-token-0123456789';

/**
 * Train once, generate later: on the dev server, real workers and the simulator, through the CLI
 * and the API, with the simulator's own records as the judge of what the provider was asked.
 */
describe('train once, generate later, retry without retraining', () => {
  let stack: InProcessStack;
  let selfiesDir: string;
  let taskQueue: string;
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    requireCompiledCli();
    stack = await startInProcessStack({
      name: 'train-generate',
      tokens: [TOKEN],
      selfies: 2,
      simulator: { trainingMs: 800, generationMs: 400 },
      archive: false,
    });
    selfiesDir = stack.selfies.dir;
    taskQueue = stack.config.temporal.taskQueue;
    const { address, namespace } = devServerUnderTest();
    cliEnv = {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      PROVIDER_BASE_URL: stack.sim.url,
      PROVIDER_API_KEY: 'sim-key',
    };
  });

  afterAll(async () => {
    await stack?.stop();
  });

  async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${stack.base}${url}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  }

  /** Workflows started on this test's task queue (visibility trails starts by a moment). */
  async function startedRuns(): Promise<string[]> {
    await delay(500);
    const ids: string[] = [];
    for await (const run of stack.env.client.workflow.list({ query: `TaskQueue = '${taskQueue}'` }))
      ids.push(run.workflowId);
    return ids.sort();
  }

  const generationOrders = (modelId: number) =>
    stack.sim.stats().orders.filter((o) => o.kind === 'generation' && o.parent === modelId);

  let modelId: number;

  it('trains once (CLI), then generates twice (CLI, then API): one model, one training run, one order per style per call', async () => {
    const trained = await runCli(
      ['train', '--images', selfiesDir, '--styles', '3', '--gender', '1', '--subject', 'ann', '--json'],
      cliEnv,
      { timeoutMs: 90_000 },
    );
    expect(trained.stderr).not.toMatch(/error/i);
    expect(trained.code).toBe(0);
    const training = JSON.parse(trained.stdout) as { workflowId: string; modelId: number; status: string };
    expect(training.status).toBe('DONE');
    modelId = training.modelId;
    const status = await fetch(`${stack.base}/v1/pipelines/${training.workflowId}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ state: 'completed', result: { modelId, status: 'DONE' } });

    const byCli = await runCli(
      ['generate', '--model', String(modelId), '--styles', '5', '--json'],
      { ...cliEnv },
      { timeoutMs: 90_000 },
    );
    expect(byCli.code).toBe(0);
    const cliResult = JSON.parse(byCli.stdout) as PipelineResult;
    expect(cliResult).toMatchObject({
      modelId,
      status: 'DONE',
      generations: [{ styleId: 5, status: 'DONE' }],
    });
    expect(cliResult.generations[0]!.avatars.length).toBeGreaterThan(0);

    const byApi = await post(`/v1/models/${modelId}/generations`, { styles: [7], polling: FAST_POLLING });
    expect(byApi.status).toBe(202);
    const apiResult = await getPipeline(stack.env.client, byApi.body.workflowId).result();
    expect(apiResult).toMatchObject({
      modelId,
      status: 'DONE',
      generations: [{ styleId: 7, status: 'DONE' }],
    });

    const stats = stack.sim.stats();
    expect(stats.totals.modelsCreated).toBe(1);
    const model = stats.orders.find((o) => o.id === modelId)!;
    expect(model).toMatchObject({ kind: 'model', runs: 1, uploads: 2 });
    const orders = generationOrders(modelId);
    expect(orders.map((o) => o.styles)).toEqual([[5], [7]]);
    expect(orders.map((o) => o.runs)).toEqual([1, 1]);
    expect(stats.totals.generationOrdersCreated).toBe(2);
  });

  it('refuses generation on what is not a DONE model of that gender, or with an unknown style, naming the field; nothing starts', async () => {
    // A model of this tenant's own that is still training: a training run, on a simulator whose
    // trainings now take ten minutes (a model the tenant's runs did not make is unknown to it).
    stack.sim.setOptions({ progression: { mode: 'wall', trainingMs: 600_000, generationMs: 400 } });
    const modelsBefore = stack.sim.stats().totals.modelsCreated;
    const training = await startTraining(
      stack.env.client,
      { images: [path.join(selfiesDir, readdirSync(selfiesDir)[0]!)], styles: [3], gender: 1 },
      { ...placementFrom({ taskQueue }), requestId: uniqueName('untrained') },
    );
    let untrained = 0;
    for (let tries = 0; untrained === 0; tries++) {
      if (tries > 200) throw new Error('the untrained model was not created');
      await delay(100);
      // Its ModelId reaches the run's search attributes once the provider made the model.
      const { typedSearchAttributes } = await stack.env.client.workflow
        .getHandle(training.workflowId)
        .describe();
      untrained =
        stack.sim.stats().totals.modelsCreated > modelsBefore
          ? Number(typedSearchAttributes.get(ModelIdAttribute) ?? 0)
          : 0;
    }
    const orderId = generationOrders(modelId)[0]!.id;
    const runsBefore = await startedRuns();
    const ordersBefore = stack.sim.stats().totals.generationOrdersCreated;

    const cases: {
      model: number;
      body: Record<string, unknown>;
      path: string;
      flag: string;
      says: string;
    }[] = [
      {
        model: 99999,
        body: { styles: [5] },
        path: 'params.modelId',
        flag: '--model',
        says: 'has no model 99999',
      },
      {
        model: orderId,
        body: { styles: [5] },
        path: 'params.modelId',
        flag: '--model',
        says: 'is a generation order',
      },
      {
        model: untrained,
        body: { styles: [5] },
        path: 'params.modelId',
        flag: '--model',
        says: 'is not trained yet',
      },
      {
        model: modelId,
        body: { styles: [5], gender: 2 },
        path: 'gender',
        flag: '--gender',
        says: 'was trained for gender 1',
      },
      {
        model: modelId,
        body: { styles: [5, 4] },
        path: 'styles.1',
        flag: '--styles',
        says: 'style 4 is not offered',
      },
    ];
    for (const c of cases) {
      const answer = await post(`/v1/models/${c.model}/generations`, c.body);
      expect([c.says, answer.status]).toEqual([c.says, 422]);
      expect(answer.body.issues).toEqual([{ path: c.path, message: expect.stringContaining(c.says) }]);

      const args = [
        'generate',
        '--model',
        String(c.model),
        '--styles',
        (c.body.styles as number[]).join(','),
      ];
      if (c.body.gender) args.push('--gender', String(c.body.gender));
      const cli = await runCli([...args, '--json'], cliEnv, { timeoutMs: 30_000 });
      expect([c.says, cli.code]).toEqual([c.says, 2]);
      expect(cli.stderr).toContain(c.flag);
      expect(cli.stderr).toContain(c.says);
      expect(cli.stdout).toBe('');
    }
    expect(await startedRuns()).toEqual(runsBefore);
    expect(stack.sim.stats().totals.generationOrdersCreated).toBe(ordersBefore);
    await stack.env.client.workflow.getHandle(training.workflowId).terminate('test done');
    stack.sim.setOptions({ progression: { mode: 'wall', trainingMs: 800, generationMs: 400 } });
  });

  it('retries only the style that ended in ERROR, under the same model, and the result lists every style', async () => {
    stack.sim.setOptions({ failStyles: [7] });
    const first = await runCli(
      ['run', '--images', selfiesDir, '--styles', '3,7', '--gender', '2', '--subject', 'ben', '--json'],
      cliEnv,
      { timeoutMs: 90_000 },
    );
    expect(first.code).toBe(0);
    const partial = JSON.parse(first.stdout) as PipelineResult;
    expect(partial.status).toBe('PARTIAL');
    expect(partial.generations.find((g) => g.styleId === 7)?.status).toBe('ERROR');
    const style3 = partial.generations.find((g) => g.styleId === 3)!;

    stack.sim.setOptions({ failStyles: [] });
    const modelsBefore = stack.sim.stats().totals.modelsCreated;
    const retried = await post(
      `/v1/pipelines/${partial.workflowId}/retry`,
      {},
      { 'idempotency-key': 'retry-1' },
    );
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({
      retryOf: partial.workflowId,
      modelId: partial.modelId,
      styles: [7],
      kept: [3],
    });
    // The same retry asked again, as a reloaded console or a second client would (another key, or
    // none), answers the one retry run: no second run, no second order for style 7.
    const repeats: Array<Record<string, string>> = [
      { 'idempotency-key': 'retry-1' },
      { 'idempotency-key': 'retry-2' },
      {},
    ];
    for (const headers of repeats) {
      const again = await post(`/v1/pipelines/${partial.workflowId}/retry`, {}, headers);
      expect({ headers, status: again.status }).toEqual({ headers, status: 200 });
      expect(again.body.workflowId).toBe(retried.body.workflowId);
    }
    const cliAgain = await runCli(
      ['retry', partial.workflowId, '--request-id', 'retry-3', '--json'],
      cliEnv,
      {
        timeoutMs: 90_000,
      },
    );
    expect(cliAgain.code).toBe(0);
    expect((JSON.parse(cliAgain.stdout) as PipelineResult).workflowId).toBe(retried.body.workflowId);
    // The retried run's status names its retry, so a console stops offering another.
    const retriedStatus = await fetch(
      `${stack.base}/v1/pipelines/${encodeURIComponent(partial.workflowId)}`,
      {
        headers: { authorization: `Bearer ${TOKEN}` },
      },
    );
    expect(((await retriedStatus.json()) as { retry?: { workflowId: string } }).retry).toMatchObject({
      workflowId: retried.body.workflowId,
    });

    const combined = await getPipeline(stack.env.client, retried.body.workflowId).result();
    expect(combined.status).toBe('DONE');
    expect(combined.modelId).toBe(partial.modelId);
    expect(combined.generations.map((g) => [g.styleId, g.status])).toEqual([
      [3, 'DONE'],
      [7, 'DONE'],
    ]);
    expect(combined.generations[0]).toEqual(style3);

    const stats = stack.sim.stats();
    expect(stats.totals.modelsCreated).toBe(modelsBefore);
    const orders = generationOrders(partial.modelId);
    expect(orders.filter((o) => o.styles.includes(3))).toHaveLength(1);
    expect(orders.filter((o) => o.styles.includes(7)).map((o) => o.status)).toEqual(['ERROR', 'DONE']);

    const nothingLeft = await runCli(['retry', retried.body.workflowId], cliEnv, { timeoutMs: 30_000 });
    expect(nothingLeft.code).toBe(2);
    expect(nothingLeft.stderr).toContain('every style ended DONE: nothing to retry');
  });

  it('streams a real run’s progress over SSE, each version once and in order, the result last', async () => {
    const started = await post(`/v1/models/${modelId}/generations`, {
      styles: [3, 5],
      polling: FAST_POLLING,
    });
    expect(started.status).toBe(202);
    const stream = await openEventStream(`${stack.base}/v1/pipelines/${started.body.workflowId}/events`, {
      authorization: `Bearer ${TOKEN}`,
    });
    const versions: number[] = [];
    let last;
    for (let event = await stream.next(); event; event = await stream.next()) {
      if (event.event === 'progress') versions.push(event.data.version);
      else last = event;
    }
    expect(versions.length).toBeGreaterThan(3);
    expect(versions).toEqual(versions.map((_, i) => versions[0]! + i));
    expect(last).toMatchObject({ event: 'result', id: 'end', data: { modelId, status: 'DONE' } });

    const listed = await fetch(`${stack.base}/v1/pipelines?kind=generation&limit=10`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const kinds = ((await listed.json()) as { pipelines: { kind: string; modelId?: number }[] }).pipelines;
    expect(kinds.length).toBeGreaterThanOrEqual(2);
    expect(kinds.every((run) => run.kind === 'generation' && run.modelId !== undefined)).toBe(true);
  });
});

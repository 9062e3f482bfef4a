import { WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { uniqueBasePath } from '../helpers/e2e-pipeline';
import { runCli } from '../helpers/run-cli';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, devServerUnderTest, uniqueName } from '../helpers/temporal-env';
import { requireCompiledCli } from '../helpers/worker-process';

describe('avatar-pipeline run with bad input', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let selfiesDir: string;

  beforeAll(async () => {
    requireCompiledCli();
    env = await createDevServerEnv();
    sim = await startSimulator({ basePath: uniqueBasePath('cli-input') });
    selfiesDir = (await writeSelfies(2, 'cli-input-selfies-')).dir;
  });
  afterAll(async () => {
    await sim?.stop();
    await env?.teardown();
  });

  test.each([
    ['a gender that is neither 1 nor 2', ['--styles', '3,5', '--gender', '3'], /--gender: "3" must be 1/],
    [
      'a style the provider does not offer',
      ['--styles', '3,4', '--gender', '1'],
      /--styles: 4 is not offered by the provider \(offered: 3, 5, 7/,
    ],
  ])('%s: exit 2 naming the field, nothing on stdout, no workflow started', async (_case, flags, message) => {
    const { address, namespace } = devServerUnderTest();
    const taskQueue = uniqueName('cli-input');
    const requestId = uniqueName('bad-input');
    const outcome = await runCli(
      ['run', '--images', selfiesDir, ...flags, '--request-id', requestId, '--json'],
      {
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
        TEMPORAL_TASK_QUEUE: taskQueue,
        PROVIDER_BASE_URL: sim.url,
        PROVIDER_API_KEY: 'sim-key',
      },
      { timeoutMs: 30_000 },
    );

    expect(outcome.stderr).toMatch(message);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    await expect(
      env.client.workflow.getHandle(`default.avatar-pipeline-${requestId}`).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    const started = [];
    for await (const execution of env.client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) {
      started.push(execution.workflowId);
    }
    expect(started).toEqual([]);
    expect(sim.stats().totals.modelsCreated).toBe(0);
  });
});

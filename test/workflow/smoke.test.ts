import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createDevServerEnv, createTimeSkippingEnv, uniqueName } from '../helpers/temporal-env';
import { smokeWorkflow, type SmokeActivities } from '../stand-in-workflows/smoke-workflows';

const ONE_HOUR_MS = 60 * 60 * 1000;

const activities: SmokeActivities = {
  greet: async (name) => `Hello, ${name}!`,
};

async function runSmokeWorkflow(env: TestWorkflowEnvironment, sleepMs: number) {
  const taskQueue = uniqueName('smoke');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace,
    taskQueue,
    workflowsPath: require.resolve('../stand-in-workflows/smoke-workflows'),
    activities,
  });
  return worker.runUntil(async () => {
    const started = Date.now();
    const handle = await env.client.workflow.start(smokeWorkflow, {
      taskQueue,
      workflowId: uniqueName('smoke'),
      args: ['Ada', sleepMs],
    });
    const result = await handle.result();
    const wallMs = Date.now() - started;
    const { status } = await handle.describe();
    return { result, wallMs, status: status.name };
  });
}

describe('a workflow with a timer and an activity', () => {
  describe('on the time-skipping test server', () => {
    let env: TestWorkflowEnvironment;
    beforeAll(async () => {
      env = await createTimeSkippingEnv();
    });
    afterAll(async () => {
      await env?.teardown();
    });

    it('skips an hour-long sleep in well under a second of wall time', async () => {
      const { result, wallMs, status } = await runSmokeWorkflow(env, ONE_HOUR_MS);
      expect(env.supportsTimeSkipping).toBe(true);
      expect(result).toEqual({ greeting: 'Hello, Ada!', sleptMs: expect.any(Number) });
      expect(result.sleptMs).toBeGreaterThanOrEqual(ONE_HOUR_MS);
      expect(wallMs).toBeLessThan(1_000);
      expect(status).toBe('COMPLETED');
    });
  });

  describe('on the shared dev server', () => {
    let env: TestWorkflowEnvironment;
    beforeAll(async () => {
      env = await createDevServerEnv();
    });
    afterAll(async () => {
      await env?.teardown();
    });

    it('runs to completion in real time and is recorded by the server', async () => {
      const { result, wallMs, status } = await runSmokeWorkflow(env, 1_000);
      expect(env.supportsTimeSkipping).toBe(false);
      expect(result.greeting).toBe('Hello, Ada!');
      expect(result.sleptMs).toBeGreaterThanOrEqual(1_000);
      expect(wallMs).toBeGreaterThanOrEqual(1_000);
      expect(status).toBe('COMPLETED');
    });
  });
});

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startPipelineRun, validatePipelineRequest } from '@avatar-pipeline/client/client/pipelines';
import { startTraining } from '@avatar-pipeline/client/client/model-runs';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { createTestWorker } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, uniqueName } from '../helpers/temporal-env';

/** Every error in a failure's cause chain. */
function causesOf(failure: unknown): Error[] {
  const causes: Error[] = [];
  for (let cause: unknown = failure; cause instanceof Error; cause = cause.cause) causes.push(cause);
  return causes;
}

/**
 * Runs started past the starters' checks (startPipelineRun and startTraining check nothing on
 * disk) with a selfie the upload would refuse: the workers' selfie check fails them before the
 * first provider request, so no model is left behind at the provider.
 */
describe('the selfie check before the model is created', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let selfies: { dir: string; files: string[] };
  let notAnImage: string;

  beforeAll(async () => {
    env = await createDevServerEnv();
    sim = await startSimulator();
    selfies = await writeSelfies(2);
    notAnImage = join(selfies.dir, 'not-an-image.png');
    await writeFile(notAnImage, 'plain text, not a PNG');
  });
  afterAll(async () => {
    await sim?.stop();
    await env?.teardown();
  });

  test.each([
    ['a missing file', () => join(selfies.dir, 'missing.png'), /images\[1\].*does not exist/],
    ['a file that is not an image', () => notAnImage, /images\[1\].*not a JPEG or PNG/],
    [
      'a file outside IMAGE_ROOTS',
      () => '/etc/hostname',
      /images\[1\].*outside the allowed image directories/,
    ],
  ])(
    '%s fails the pipeline and the training with InvalidInput, and nothing reaches the provider',
    async (_, wrong, message) => {
      const taskQueue = uniqueName('selfie-check');
      const worker = await createTestWorker({
        connection: env.nativeConnection,
        namespace: env.namespace ?? 'default',
        taskQueue,
        providerUrl: sim.url,
        imageRoots: [selfies.dir],
      });
      const images = [selfies.files[0]!, wrong()];
      const failures = await worker.runUntil(async () => {
        const placement = placementFrom({ taskQueue });
        const pipeline = await startPipelineRun(
          env.client,
          validatePipelineRequest({ images, styles: [3], gender: 1 }),
          placement,
        );
        const training = await startTraining(env.client, { images, styles: [3], gender: 1 }, placement);
        return Promise.all(
          [pipeline.workflowId, training.workflowId].map((id) =>
            env.client.workflow
              .getHandle(id)
              .result()
              .catch((err: unknown) => err),
          ),
        );
      });
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(WorkflowFailedError);
        const invalid = causesOf(failure).find((c) => (c as { type?: string }).type === 'InvalidInput');
        expect(invalid?.message).toMatch(message);
      }
      expect(sim.stats().totals.modelsCreated).toBe(0);
      expect(Object.values(sim.stats().requests.byEndpoint).reduce((a, b) => a + b, 0)).toBe(0);
    },
  );
});

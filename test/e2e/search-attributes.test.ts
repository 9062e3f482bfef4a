import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { createTestWorker } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { listWorkflowIds, waitForListed } from '../helpers/temporal-cli';
import { createDevServerEnv, uniqueName } from '../helpers/temporal-env';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';

/**
 * Operators find runs in the Temporal UI and with `temporal workflow list --query` by subject,
 * campaign, model and stage; the stage follows the run.
 */
describe('search attributes on the dev server', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let selfies: { dir: string; files: string[] };

  beforeAll(async () => {
    env = await createDevServerEnv();
    selfies = await writeSelfies(2, 'sa-selfies-');
    // Training takes a few seconds of wall time, long enough to see the run in that stage.
    sim = await startSimulator({ progression: { mode: 'wall', trainingMs: 4_000, generationMs: 300 } });
  });
  afterAll(async () => {
    await sim?.stop();
    await env?.teardown();
  });

  test('a pipeline is found by subject, campaign, model and stage, and its stage moves on', async () => {
    const taskQueue = uniqueName('search-attributes');
    const subjectId = uniqueName('subject');
    const campaignId = uniqueName('campaign');
    const worker = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
    });
    const { workflowId, modelId, trainingList } = await worker.runUntil(async () => {
      const pipeline = await startPipeline(
        env.client,
        {
          images: selfies.files,
          styles: [3, 5],
          gender: 1,
          subjectId,
          campaignId,
          polling: { initialIntervalMs: 250, minIntervalMs: 200, maxIntervalMs: 500 },
        },
        placementFrom({ taskQueue }),
      );
      // While the provider trains, the run is listed in that stage.
      const trainingList = await waitForListed(`SubjectId = '${subjectId}' AND PipelineStage = 'training'`, [
        pipeline.workflowId,
      ]);
      const result = await pipeline.result();
      return { workflowId: pipeline.workflowId, modelId: result.modelId, trainingList };
    });
    expect(trainingList).toEqual([workflowId]);

    expect(
      await waitForListed(`PipelineStage = 'done' AND SubjectId = '${subjectId}'`, [workflowId]),
    ).toEqual([workflowId]);
    // Each attribute on its own finds this run and only it.
    expect(await listWorkflowIds(`SubjectId = '${subjectId}'`)).toEqual([workflowId]);
    expect(await listWorkflowIds(`CampaignId = '${campaignId}'`)).toEqual([workflowId]);
    expect(await listWorkflowIds(`ModelId = ${modelId} AND CampaignId = '${campaignId}'`)).toEqual([
      workflowId,
    ]);
    // Other tests' simulators hand out the same model ids on this shared server: narrow by task queue.
    expect(await listWorkflowIds(`ModelId = ${modelId} AND TaskQueue = '${taskQueue}'`)).toEqual([
      workflowId,
    ]);
    // It left the training stage behind.
    expect(await listWorkflowIds(`SubjectId = '${subjectId}' AND PipelineStage = 'training'`)).toEqual([]);

    const description = await env.client.workflow.getHandle(workflowId).describe();
    expect(description.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value])).toEqual(
      expect.arrayContaining([
        ['SubjectId', subjectId],
        ['CampaignId', campaignId],
        ['ModelId', modelId],
        ['PipelineStage', 'done'],
      ]),
    );
    expect(await description.staticSummary()).toBe(`Avatars for ${subjectId}: 2 selfies, styles 3, 5`);
    expect(await description.staticDetails()).toContain('**Styles:** 3, 5');
  });
});

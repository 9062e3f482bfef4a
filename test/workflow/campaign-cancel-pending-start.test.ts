import { setTimeout as delay } from 'node:timers/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { createCampaignActivities } from '../../activities/campaign-activities';
import { startCampaign } from '@avatar-pipeline/client/campaign/campaigns';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { subjects } from '../helpers/campaign-rig';
import { createDevServerEnv, makeScratchDir, uniqueName } from '../helpers/temporal-env';
import { releaseChildStartsSignal } from '../stand-in-workflows/hold-child-starts';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';

/**
 * The race of a campaign cancelled while a subject's start is in flight, with the order forced:
 * the start command is held (a test interceptor) until the campaign has taken the cancel, then
 * let go. The cancel sent while the start was pending found no child; the campaign must cancel
 * the child once its start completes, not wait for it to run to its end.
 */
describe('a campaign cancelled while a subject is starting', () => {
  let env: TestWorkflowEnvironment;
  let store: FsBlobStore;
  const taskQueue = uniqueName('cancel-pending-start');
  /** How long the stand-in pipeline runs unless cancelled: far beyond what the test waits. */
  const PIPELINE_MS = 10 * 60_000;

  beforeAll(async () => {
    env = await createDevServerEnv();
    store = new FsBlobStore(await makeScratchDir('cancel-pending-start'));
  });
  afterAll(async () => env?.teardown());

  test('cancels the child whose start was pending, and ends cancelled without waiting for it', async () => {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue,
      workflowBundle: await bundleWorkflowCode({
        workflowsPath: require.resolve('../stand-in-workflows/campaign-stand-in'),
        workflowInterceptorModules: [require.resolve('../stand-in-workflows/hold-child-starts')],
        logger: new DefaultLogger('WARN'),
      }),
      activities: {
        ...createCampaignActivities({ store }),
        webhookSubscribed: async () => ({ subscribed: false }),
      },
    });
    await worker.runUntil(async () => {
      const campaign = await startCampaign(env.client, subjects(1, '/selfies/one.png', [3]), {
        ...placementFrom({ taskQueue }),
        store,
        campaignId: uniqueName('cancel-pending'),
        pipelineWorkflowType: 'slowStandInPipeline',
        options: { maxInFlight: 1, trainingDeadlineMs: PIPELINE_MS },
      });
      // The subject is launched: counted in flight, its start held before the command goes out.
      for (let p = await campaign.progress(); p.counts.running !== 1; p = await campaign.progress()) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const cancelling = await campaign.cancel();
      expect(cancelling.state).toBe('cancelling');
      // Now the start goes out, after the cancel could not reach it.
      await env.client.workflow.getHandle(campaign.campaignId).signal(releaseChildStartsSignal);

      // Without the fix the campaign waits for the child to run its course (PIPELINE_MS).
      const giveUp = new AbortController();
      const summary = await Promise.race([
        campaign.result(),
        delay(60_000, undefined, { signal: giveUp.signal }).then(() => {
          throw new Error('the campaign did not end within 60 s of its cancel: it is waiting for the child');
        }),
      ]).finally(() => giveUp.abort());
      expect(summary.status).toBe('CANCELLED');
      expect(summary.subjects).toEqual([expect.objectContaining({ subjectId: 'u1', status: 'CANCELLED' })]);
      const child = await env.client.workflow.getHandle(summary.subjects[0]!.workflowId).describe();
      expect(child.status.name).toBe('CANCELLED');
      // Ended by the cancel, not by running its course.
      expect(child.closeTime!.getTime() - child.startTime.getTime()).toBeLessThan(PIPELINE_MS / 2);
    });
  }, 120_000);
});

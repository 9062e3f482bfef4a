import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { setTimeout as delay } from 'node:timers/promises';
import { submitCampaignReviews } from '@avatar-pipeline/client/client/campaign-reviews';
import { listPipelines } from '@avatar-pipeline/client/client/list-pipelines';
import { startRetry } from '@avatar-pipeline/client/client/model-runs';
import { getPipeline, startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { submitReview } from '@avatar-pipeline/client/client/review';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { InputError } from '@avatar-pipeline/client/errors';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { CampaignRig, FAST_POLLING, progressUntil, subjects } from '../helpers/campaign-rig';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, makeScratchDir } from '../helpers/temporal-env';

/*
 * Review where the visibility store is needed (the time-skipping server has none), on the dev
 * server with real workers and the simulator. A campaign that requires review: its subjects' runs
 * wait at their gates for a person, and the campaign's window does not wait with them. With a
 * window of one and nobody deciding, every subject still reaches its gate, one after another (a
 * window that counted them would hold at the first); then one batch decides for all. And a retry
 * of a reviewed run (which looks its model's trainer up in the listing) is reviewed too.
 */
describe('review on the dev server', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let selfie: string;
  let imageRoot: string;
  let blobDir: string;

  beforeAll(async () => {
    env = await createDevServerEnv();
    const selfies = await writeSelfies(1, 'campaign-review-selfies-');
    selfie = selfies.files[0]!;
    imageRoot = selfies.dir;
    blobDir = await makeScratchDir('campaign-review');
    sim = await startSimulator({
      progression: { mode: 'wall', trainingMs: 150, generationMs: 150 },
      avatarsPerOrder: 2,
      failStyles: [19],
    });
  });
  afterAll(async () => {
    await sim?.stop();
    await env?.teardown();
  });

  const newRig = () =>
    CampaignRig.create({
      connection: env.nativeConnection,
      client: env.client,
      providerUrl: sim.url,
      imageRoots: [imageRoot],
      blobDir,
    });

  test('a campaign: subjects at their gates leave the window; one batch approves them all; refusals name their run', async () => {
    const rig = await newRig();
    const summary = await rig.run(async () => {
      const campaign = await rig.start(subjects(4, selfie, [3, 5]), {
        options: { maxInFlight: 1, fixedWindow: true, polling: FAST_POLLING, review: { required: true } },
      });
      const waiting = await progressUntil(campaign, (p) => p.awaitingReview?.count === 4, 60_000);
      // Counted as running (their runs are open), the four of them, while the window holds one.
      expect(waiting.counts).toMatchObject({ running: 4, pending: 0, done: 0 });
      expect(waiting.window.size).toBe(1);
      expect([...waiting.awaitingReview!.subjects].sort()).toEqual(['u1', 'u2', 'u3', 'u4']);
      // One model each, two styles each, ordered once.
      expect(sim.stats().totals).toMatchObject({ modelsCreated: 4, generationOrdersCreated: 8 });

      // The listing names them (the visibility store catches up with the PipelineStage soon after).
      let listed: Awaited<ReturnType<typeof listPipelines>> = [];
      for (let i = 0; i < 100 && listed.length < 4; i++) {
        listed = await listPipelines(env.client, {
          campaignId: campaign.campaignId,
          status: 'awaiting-review',
        });
        if (listed.length < 4) await delay(100);
      }
      expect(listed.map((run) => run.subjectId).sort()).toEqual(['u1', 'u2', 'u3', 'u4']);

      // A malformed batch decides nothing.
      await expect(
        submitCampaignReviews(
          env.client,
          campaign.campaignId,
          { reviews: [{ workflowId: listed[0]!.workflowId, decision: 'regenerate' }] },
          { reviewer: { via: 'test' } },
        ),
      ).rejects.toThrow(InputError);

      // One batch: three whole runs approved, one run's decisions refused (a style it does not
      // have), and a run of no campaign named. Each is answered on its own.
      const outsider = await startPipeline(
        env.client,
        { images: [selfie], styles: [3], gender: 1, polling: FAST_POLLING },
        rig.placement,
      );
      const [first, second, third, fourth] = listed;
      const results = await submitCampaignReviews(
        env.client,
        campaign.campaignId,
        {
          reviews: [
            { workflowId: first!.workflowId, decision: 'approve' },
            { workflowId: second!.workflowId, decision: 'approve' },
            { workflowId: third!.workflowId, decisions: [{ styleId: 9, decision: 'approve' }] },
            { workflowId: outsider.workflowId, decision: 'approve' },
            { workflowId: fourth!.workflowId, decision: 'approve' },
          ],
        },
        { reviewer: { via: 'test' }, requestId: 'batch-1' },
      );
      expect(results.map((r) => [r.effect, r.decided, r.issues?.[0]?.path])).toEqual([
        ['decided', 2, undefined],
        ['decided', 2, undefined],
        ['refused', 0, 'reviews.2.decisions.0.styleId'],
        ['refused', 0, 'reviews.3.workflowId'],
        ['decided', 2, undefined],
      ]);
      await outsider.result();
      // "Approve" again decides nothing twice: that run has nothing left to decide.
      const again = await submitCampaignReviews(
        env.client,
        campaign.campaignId,
        { reviews: [{ workflowId: first!.workflowId, decision: 'approve' }] },
        { reviewer: { via: 'test' } },
      );
      expect(again[0]).toEqual({ workflowId: first!.workflowId, effect: 'unchanged', decided: 0 });
      await progressUntil(campaign, (p) => p.awaitingReview?.count === 1 && p.counts.done === 3, 60_000);
      await submitCampaignReviews(
        env.client,
        campaign.campaignId,
        { reviews: [{ workflowId: third!.workflowId, decision: 'reject' }] },
        { reviewer: { via: 'test' } },
      );
      return campaign.result();
    });
    expect(summary).toMatchObject({ total: 4, succeeded: 3, failed: 1, cancelled: 0, status: 'COMPLETED' });
    // Approval changes no order: two styles each, ordered once.
    expect(sim.stats().totals).toMatchObject({ generationOrdersCreated: 9 });
  });

  test('a retry of a reviewed run is held for review too; what was approved is kept without asking again', async () => {
    const rig = await newRig();
    const provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 });
    await rig.run(async () => {
      const placement = rig.placement;
      const pipeline = await startPipeline(
        env.client,
        { images: [selfie], styles: [3, 19], gender: 1, polling: FAST_POLLING, review: { required: true } },
        placement,
      );
      // Kept until style 3 is generated; style 19 fails in generation: nothing of it to review.
      await submitReview(
        env.client,
        pipeline.workflowId,
        { decisions: [{ styleId: 3, decision: 'approve' }] },
        { reviewer: { via: 'test' } },
      );
      const result = await pipeline.result();
      expect(result.generations.map((g) => [g.styleId, g.status])).toEqual([
        [3, 'DONE'],
        [19, 'ERROR'],
      ]);
      expect(result.review).toMatchObject({ approved: [3] });
      const retry = await startRetry(env.client, provider, pipeline.workflowId, placement);
      expect(retry.plan).toMatchObject({ styles: [19], reviewed: true });
      const retried = getPipeline(env.client, retry.workflowId);
      const progress = await retried.progress();
      expect(progress.review).toMatchObject({
        state: 'waiting',
        styles: [{ styleId: 19, state: 'pending' }],
      });
      await retried.cancel();
    });
  });
});

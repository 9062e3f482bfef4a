import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { setTimeout as delay } from 'node:timers/promises';
import type { CampaignHandle } from '@avatar-pipeline/client/campaign/campaigns';
import type { CampaignProgress } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { campaignShare } from '@avatar-pipeline/client/contracts/campaign/campaign-share';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { CampaignRig, FAST_POLLING, subjects } from '../helpers/campaign-rig';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, makeScratchDir } from '../helpers/temporal-env';

/**
 * A campaign's work is dispatched with its tenant as the fairness key and the operator's weight
 * and priority: the campaign's own workflow and every child pipeline carry them (activities
 * inherit their workflow's), and a tenant's campaigns share the tenant's in-flight window.
 */
describe("campaign work carries the tenant's share", () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let selfie: string;
  let imageRoot: string;
  let blobDir: string;

  beforeAll(async () => {
    env = await createDevServerEnv();
    const selfies = await writeSelfies(1, 'campaign-share-selfies-');
    selfie = selfies.files[0]!;
    imageRoot = selfies.dir;
    blobDir = await makeScratchDir('campaign-share');
  });
  afterEach(async () => sim?.stop());
  afterAll(async () => env?.teardown());

  const rig = () =>
    CampaignRig.create({
      connection: env.nativeConnection,
      client: env.client,
      providerUrl: sim.url,
      imageRoots: [imageRoot],
      blobDir,
    });

  test('the campaign and its pipelines are dispatched with the tenant as fairness key, its weight and priority', async () => {
    sim = await startSimulator({
      progression: { mode: 'wall', trainingMs: 100, generationMs: 100 },
      avatarsPerOrder: 1,
    });
    const r = await rig();
    const share = campaignShare('acme', { fairnessWeight: 3, priorityCeiling: 5 });
    const { campaign, summary } = await r.run(async () => {
      const campaign = await r.start(subjects(2, selfie), {
        share,
        options: { maxInFlight: 2, polling: FAST_POLLING },
      });
      return { campaign, summary: await campaign.result() };
    });
    expect(summary.succeeded).toBe(2);
    const expected = { priorityKey: 5, fairnessKey: 'acme', fairnessWeight: 3 };
    expect((await campaign.raw.describe()).priority).toEqual(expected);
    for (const subject of summary.subjects)
      expect((await env.client.workflow.getHandle(subject.workflowId).describe()).priority).toEqual(expected);
  });

  test("two campaigns of one tenant hold half the tenant's window each", async () => {
    // Trainings long enough that both windows stay full while they sample.
    sim = await startSimulator({
      progression: { mode: 'wall', trainingMs: 60_000, generationMs: 100 },
      avatarsPerOrder: 1,
    });
    const r = await rig();
    const options = {
      maxInFlight: 'auto' as const,
      // No backlog is ever low enough to grow on: the window holds, and only its sharing moves it.
      autoWindow: { sampleEveryMs: 300, initial: 8, lowBacklogMs: 0 },
      polling: FAST_POLLING,
    };
    const waitFor = async (campaign: CampaignHandle, check: (p: CampaignProgress) => boolean) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const progress = await campaign.progress();
        if (check(progress)) return progress;
        if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(progress.window)}`);
        await delay(200);
      }
    };
    await r.run(async () => {
      const first = await r.start(subjects(20, selfie), { share: campaignShare('acme'), options });
      // Alone, the tenant's window is the campaign's: it starts at 8.
      await waitFor(first, (p) => p.window.size === 8 && p.counts.running === 8);
      const second = await r.start(subjects(20, selfie), { share: campaignShare('acme'), options });
      // Once it knows of the second, each holds half of the tenant's window.
      const firstHalf = await waitFor(first, (p) => p.window.size === 4);
      const secondHalf = await waitFor(second, (p) => p.window.size === 4 && p.counts.running > 0);
      expect(firstHalf.window.detail).toMatch(/2 campaign\(s\)/);
      expect(secondHalf.counts.running).toBeLessThanOrEqual(4);
      // Another tenant's campaign does not divide it.
      const other = await r.start(subjects(20, selfie), { share: campaignShare('globex'), options });
      const alone = await waitFor(other, (p) => p.counts.running === 8);
      expect(alone.window).toMatchObject({ size: 8 });
      expect(alone.window.detail).not.toMatch(/campaign\(s\)/);
      for (const campaign of [first, second, other]) await campaign.cancel();
      for (const campaign of [first, second, other]) await campaign.result();
    });
  });
});

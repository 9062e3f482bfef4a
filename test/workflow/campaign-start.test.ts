import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startCampaign } from '@avatar-pipeline/client/campaign/campaigns';
import { campaignShare } from '@avatar-pipeline/client/contracts/campaign/campaign-share';
import type { CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { subjects } from '../helpers/campaign-rig';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, makeScratchDir, uniqueName } from '../helpers/temporal-env';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';

/**
 * A campaign starts through the start path of every run (startRunOnce): no worker is needed to see
 * what the start records, and starting the same id again attaches instead of starting a second.
 */
describe('starting a campaign', () => {
  let env: TestWorkflowEnvironment;
  let store: FsBlobStore;
  let people: CampaignSubject[];

  beforeAll(async () => {
    env = await createDevServerEnv();
    const selfies = await writeSelfies(1, 'campaign-start-selfies-');
    people = subjects(2, selfies.files[0]!);
    store = new FsBlobStore(await makeScratchDir('campaign-start'));
  });
  afterAll(async () => env?.teardown());

  const start = (campaignId: string, taskQueue: string) =>
    startCampaign(env.client, people, {
      ...placementFrom({ taskQueue }),
      store,
      campaignId,
      // The operator's choice (the CLI's --priority): callers of the API cannot choose a priority.
      share: campaignShare('default', undefined, { priorityKey: 2 }),
      options: { maxInFlight: 3, fixedWindow: true },
    });

  test('records its priority, its CampaignId (no pipeline stage or subject), memo and summary', async () => {
    const campaignId = uniqueName('start-campaign');
    const handle = await start(campaignId, uniqueName('campaign-start'));
    const description = await handle.raw.describe();
    await handle.raw.terminate('test done');

    expect(description.type).toBe(WORKFLOW_TYPES.campaign);
    expect(description.priority).toMatchObject({ priorityKey: 2, fairnessKey: 'default', fairnessWeight: 1 });
    // Its id is the tenant's (`default.<name>`), and so are its search attributes and memo.
    expect(handle.campaignId).toBe(`default.${campaignId}`);
    const attributes = description.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value]);
    expect(attributes.sort()).toEqual([
      ['AvatarTenant', 'default'],
      ['CampaignId', `default.${campaignId}`],
    ]);
    expect(description.memo).toEqual({
      kind: 'campaign',
      total: 2,
      fairnessKey: 'default',
      tenant: 'default',
      manifest: {
        key: expect.stringMatching(/^campaigns\/default\..+\/manifest\.json$/),
        sha256: expect.any(String),
        total: 2,
      },
    });
    expect(await description.staticSummary()).toBe('Campaign of 2 subjects, 3 at a time');
  });

  test('the same id again attaches to the campaign, open or closed, and starts nothing', async () => {
    const campaignId = uniqueName('attach-campaign');
    const taskQueue = uniqueName('campaign-start');
    const first = await start(campaignId, taskQueue);
    const { runId } = await first.raw.describe();

    const again = await start(campaignId, taskQueue);
    expect(again.campaignId).toBe(`default.${campaignId}`);
    expect((await again.raw.describe()).runId).toBe(runId);

    await first.raw.terminate('closed before the next start');
    const afterClose = await start(campaignId, taskQueue);
    const closed = await afterClose.raw.describe();
    expect(closed.runId).toBe(runId);
    expect(await afterClose.status()).toBe('TERMINATED');
  });
});

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Worker, type WorkflowBundle } from '@temporalio/worker';
import { createCampaignActivities } from '../../activities/campaign-activities';
import { startCampaign } from '../../src/client/campaigns';
import { subjects } from '../helpers/campaign-rig';
import { createDevServerEnv, makeScratchDir, uniqueName } from '../helpers/temporal-env';

describe('campaign history stays bounded (stand-in pipelines that finish at once)', () => {
  let env: TestWorkflowEnvironment;
  let manifestDir: string;
  let workflowBundle: WorkflowBundle;
  const taskQueue = uniqueName('campaign-history');

  beforeAll(async () => {
    env = await createDevServerEnv();
    manifestDir = await makeScratchDir('campaign-history');
    workflowBundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../workflows/campaign-stand-in'),
      logger: new DefaultLogger('WARN'),
    });
  });
  afterAll(async () => env?.teardown());

  /** A worker runs once: a fresh one per test, on the bundle made once. */
  const worker = () =>
    Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue,
      workflowBundle,
      activities: createCampaignActivities({ manifestDir }),
      maxCachedWorkflows: 300,
      maxConcurrentWorkflowTaskExecutions: 50,
    });

  async function runCampaign(
    count: number,
    options: { maxInFlight: number; subjectsPerRun?: number; pageSize?: number },
  ) {
    const campaign = await startCampaign(env.client, subjects(count, '/selfies/one.png', [3, 5]), {
      taskQueue,
      providerTaskQueue: `${taskQueue}-provider`,
      manifestDir,
      campaignId: uniqueName('history'),
      pipelineWorkflowType: 'standInPipeline',
      options,
    });
    const summary = await campaign.result();
    const runs = [];
    for await (const run of env.client.workflow.list({ query: `WorkflowId = '${campaign.campaignId}'` })) {
      const history = await env.client.workflow.getHandle(campaign.campaignId, run.runId).fetchHistory();
      const events = history.events ?? [];
      const bytes = events.reduce((n, e) => n + JSON.stringify(e).length, 0);
      runs.push({ status: run.status.name, events: events.length, bytes });
    }
    return { campaign, summary, runs };
  }

  test('60 subjects, 10 per run: several continue-as-new, every subject done exactly once, in order', async () => {
    const { campaign, summary, runs } = await (
      await worker()
    ).runUntil(() => runCampaign(60, { maxInFlight: 7, subjectsPerRun: 10, pageSize: 25 }));
    expect(summary).toMatchObject({ total: 60, succeeded: 60, failed: 0, cancelled: 0, status: 'COMPLETED' });
    expect(summary.subjects.map((s) => s.subjectId)).toEqual(subjects(60, '').map((s) => s.subjectId));
    expect(summary.subjects.map((s) => s.modelId)).toEqual(Array.from({ length: 60 }, (_, i) => 1001 + i));
    expect(summary.subjects.every((s) => s.avatarCount === 2 && s.attempts === undefined)).toBe(true);
    expect(runs.length).toBeGreaterThanOrEqual(6);
    expect(runs.filter((r) => r.status === 'CONTINUED_AS_NEW')).toHaveLength(runs.length - 1);
    for (const run of runs) expect(run.events).toBeLessThan(150);
    // The results export reads every subject's pipeline result.
    const rows = [];
    for await (const row of campaign.resultRows()) rows.push(row);
    expect(rows).toHaveLength(120);
    expect(rows[0]).toEqual({
      subjectId: 'u1',
      styleId: 3,
      avatarId: 100100,
      imageUrl: 'https://cdn.example/1001/3.png',
    });
  });
});

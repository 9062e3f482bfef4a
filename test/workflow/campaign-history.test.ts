import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Worker, type WorkflowBundle } from '@temporalio/worker';
import { createCampaignActivities } from '../../activities/campaign-activities';
import { startCampaign, type CampaignHandle } from '@avatar-pipeline/client/campaign/campaigns';
import type { CampaignOptions } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { subjects } from '../helpers/campaign-rig';
import { createDevServerEnv, makeScratchDir, uniqueName } from '../helpers/temporal-env';
import { temporal } from '@temporalio/proto';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';

const { EventType } = temporal.api.enums.v1;
/**
 * Events whose number depends on how the server batches work into workflow tasks, which a busy
 * machine changes: the tasks themselves and the memo update a task makes when the counts moved.
 */
const taskEvents = new Set<number>([
  EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED,
]);

describe('campaign history stays bounded (stand-in pipelines that finish at once)', () => {
  let env: TestWorkflowEnvironment;
  let store: FsBlobStore;
  let workflowBundle: WorkflowBundle;
  const taskQueue = uniqueName('campaign-history');

  beforeAll(async () => {
    env = await createDevServerEnv();
    store = new FsBlobStore(await makeScratchDir('campaign-history'));
    workflowBundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../stand-in-workflows/campaign-stand-in'),
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
      activities: {
        ...createCampaignActivities({ store }),
        // A campaign asks at start whether anything is subscribed to its webhooks: here nothing is.
        webhookSubscribed: async () => ({ subscribed: false }),
      },
      maxCachedWorkflows: 300,
      maxConcurrentWorkflowTaskExecutions: 50,
    });

  async function runCampaign(
    count: number,
    options: CampaignOptions,
    pipelineWorkflowType = 'standInPipeline',
    watch?: (campaign: CampaignHandle) => Promise<void>,
  ) {
    const campaign = await startCampaign(env.client, subjects(count, '/selfies/one.png', [3, 5]), {
      ...placementFrom({ taskQueue }),
      store,
      campaignId: uniqueName('history'),
      pipelineWorkflowType,
      options,
    });
    const [summary] = await Promise.all([campaign.result(), watch?.(campaign)]);
    const runs = [];
    for await (const run of env.client.workflow.list({ query: `WorkflowId = '${campaign.campaignId}'` })) {
      const history = await env.client.workflow.getHandle(campaign.campaignId, run.runId).fetchHistory();
      const events = history.events ?? [];
      const bytes = events.reduce((n, e) => n + JSON.stringify(e).length, 0);
      const own = events.filter((e) => !taskEvents.has(Number(e.eventType))).length;
      runs.push({ status: run.status.name, events: events.length, own, bytes });
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
    // What the campaign itself writes grows with the subjects of one run, not of the campaign: per
    // subject a child start, its started and completed events and its end signal, plus a fixed
    // few per run; carried children signal the next run. All 60 in one run would write over 300.
    for (const run of runs) expect(run.own).toBeLessThan(80);
    // With every event in a task of its own (a busy machine), a subject adds at most 3 tasks of
    // 3 events and a memo update each, carried ones 1 of each: under 220 for 10 plus 7 carried.
    for (const run of runs) expect(run.events).toBeLessThan(220);
    // The results export reads every subject's pipeline result.
    const rows = [];
    for await (const row of campaign.resultRows()) rows.push(row);
    expect(rows).toHaveLength(120);
    expect(rows[0]).toEqual({
      subjectId: 'u1',
      modelId: 1001,
      styleId: 3,
      avatarId: 100100,
      imageUrl: 'https://cdn.example/1001/3.png',
    });
  });

  test('no drain at continue-as-new: subjects of one run keep running and report to the next', async () => {
    // Stand-ins that take 1.5 s, 8 at a time, 10 started per run: every run ends with 8 in flight.
    const samples: { run: number; running: number; pending: number }[] = [];
    const watch = async (campaign: CampaignHandle) => {
      for (;;) {
        const p = await campaign.progress().catch(() => undefined);
        if (p) samples.push({ run: p.run, running: p.counts.running, pending: p.counts.pending });
        if (p && (p.state === 'completed' || p.state === 'cancelled')) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const { summary, runs } = await (
      await worker()
    ).runUntil(() =>
      runCampaign(
        40,
        { maxInFlight: 8, fixedWindow: true, subjectsPerRun: 10, trainingDeadlineMs: 1_500 },
        'slowStandInPipeline',
        watch,
      ),
    );
    expect(summary).toMatchObject({ total: 40, succeeded: 40, failed: 0, cancelled: 0, status: 'COMPLETED' });
    expect(summary.subjects.every((s) => s.attempts === undefined)).toBe(true);
    expect(runs.length).toBeGreaterThanOrEqual(4);
    // Around every run boundary subjects stay in flight while others are pending: a run that let
    // its children finish first would show 0 here. (The count dips while the new run reads its
    // page of the manifest before starting the next subject; a busy machine deepens the dip.)
    const boundaries = samples.flatMap((s, i) => (i > 0 && s.run !== samples[i - 1]!.run ? [i] : []));
    expect(boundaries.length).toBeGreaterThanOrEqual(3);
    for (const i of boundaries) {
      for (const s of samples.slice(Math.max(0, i - 2), i + 2))
        if (s.pending > 0) expect(s.running).toBeGreaterThan(0);
    }
  });

  test('a child terminated (never reporting its end) is found: the campaign ends with it failed, the rest done', async () => {
    // Stand-ins that take 4 s, all 4 in flight, 2 started per run: children of the first run are
    // carried into the second, and one of those is terminated there.
    let terminated = '';
    const watch = async (campaign: CampaignHandle) => {
      for (;;) {
        const p = await campaign.progress().catch(() => undefined);
        if (p && p.run >= 2 && p.counts.running === 4) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      terminated = `${campaign.campaignId}/u1`;
      await env.client.workflow.getHandle(terminated).terminate('operator stopped it');
    };
    const { summary } = await (
      await worker()
    ).runUntil(() =>
      runCampaign(
        4,
        {
          maxInFlight: 4,
          fixedWindow: true,
          subjectsPerRun: 2,
          trainingDeadlineMs: 4_000,
          childCheckMs: 1_000,
        },
        'slowStandInPipeline',
        watch,
      ),
    );
    expect(terminated).not.toBe('');
    expect(summary).toMatchObject({ total: 4, succeeded: 3, failed: 1, cancelled: 0, status: 'COMPLETED' });
    const u1 = summary.subjects.find((s) => s.subjectId === 'u1')!;
    expect(u1.status).toBe('FAILED');
    expect(u1.error).toBe(
      `terminated: its pipeline ${terminated} was terminated before it reported its end to the campaign`,
    );
    expect(summary.subjects.filter((s) => s.status === 'DONE').map((s) => s.subjectId)).toEqual([
      'u2',
      'u3',
      'u4',
    ]);
  });
});

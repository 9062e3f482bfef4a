import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { temporal } from '@temporalio/proto';
import { startCampaign } from '@avatar-pipeline/client/campaign/campaigns';
import { startPipeline, type PipelineHandle } from '@avatar-pipeline/client/client/pipelines';
import type { PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';
import { type Cluster } from '../harness/cluster';
import { buildIdsOf, lastWorkflowTaskAt, WorkerDeployment } from '../harness/worker-deployment';

const { VERSIONING_BEHAVIOR_PINNED: PINNED } = temporal.api.enums.v1.VersioningBehavior;

/**
 * The README's "Deploying a change" on the cluster, with two builds of the package (A, then B) as
 * separate worker processes of one Worker Deployment on task queues of their own:
 * roll out B while a pipeline and a campaign run on A; roll back to A while a pipeline runs on B;
 * drain B and stop its workers. Pipelines finish on the version they started on, new ones go to
 * the current version, and the campaign continues as new onto B (the server tells its pinned run
 * a new version is current). Version stamps are read from each run's history and describe.
 */
export async function checkWorkerVersions(
  cluster: Cluster,
  options: { polling: PollingOptions; note: (line: string) => void },
): Promise<void> {
  const { note } = options;
  // A provider without faults, whose trainings last long enough to switch versions during one.
  const providerUrl = await cluster.startSimulator('versions-simulator', [
    '--training-ms',
    '4000',
    '--generation-ms',
    '1000',
    '--avatars-per-order',
    '2',
  ]);
  const taskQueue = `cluster-versions-${Date.now()}`;
  const placement = placementFrom({ taskQueue });
  // The README's default deployment name (TEMPORAL_DEPLOYMENT_NAME unset).
  const deployment = new WorkerDeployment(cluster, 'avatar-pipeline');
  const startBuild = (buildId: string) =>
    cluster.startWorker(`worker-${buildId}`, {
      TEMPORAL_TASK_QUEUE: taskQueue,
      TEMPORAL_WORKER_BUILD_ID: buildId,
      PROVIDER_BASE_URL: providerUrl,
    });
  const start = (gender: 1 | 2) =>
    startPipeline(
      cluster.client,
      { images: cluster.selfies.files, styles: [3], gender, polling: options.polling },
      placement,
    );
  /** Until the pipeline trains: the switch made now happens before its next workflow task. */
  const training = async (pipeline: PipelineHandle) =>
    cluster.waitFor(`${pipeline.workflowId} to train`, async () => {
      const progress = await pipeline.progress();
      return progress.training.polls >= 1;
    });

  await startBuild('A');
  await deployment.setCurrentVersion('A');
  // B's workers start before anything runs on A: a worker takes seconds to start, a pipeline here
  // not much longer.
  await startBuild('B');
  note('workers of A and B polling, A current');
  const onA = await start(1);
  const campaign = await startCampaign(
    cluster.client,
    [1, 2].map((i) => ({
      subjectId: `versions-${i}`,
      gender: 1 as const,
      styles: [3],
      images: cluster.selfies.files,
      mainImageIndex: 0,
      row: i + 1,
    })),
    {
      ...placement,
      store: cluster.store,
      campaignId: `${taskQueue}-campaign`,
      options: { maxInFlight: 1, polling: options.polling },
    },
  );
  const firstCampaignRun = (await campaign.raw.describe()).runId;

  // 1. Roll out: B current while the pipeline (and the campaign's first subject) on A train.
  await training(onA);
  await deployment.setCurrentVersion('B');
  const rolledOutAt = Date.now();
  note('version B current (rolled out)');
  const [resultA, summary] = await Promise.all([onA.result(), campaign.result()]);

  // 2. Roll back: A current again (its workers still run) while a pipeline on B trains.
  const onB = await start(2);
  await training(onB);
  await deployment.setCurrentVersion('A');
  const rolledBackAt = Date.now();
  note('version A current again (rolled back)');
  const afterRollback = await start(1);

  // 3. Drain B: describe-version says draining; once no pinned run of B is open, stop its workers.
  expect(await deployment.drainageStatus('B')).toBe('draining');
  await cluster.waitFor(
    'no open run pinned to version B',
    async () => (await deployment.openPinnedRuns('B')).length === 0,
    180_000,
  );
  const workerB = cluster.workers.find((w) => w.name === 'worker-B')!;
  expect(await workerB.process.stop()).toBe(0);
  note('version B drained, its workers stopped');

  const [resultB, resultAfter] = await Promise.all([onB.result(), afterRollback.result()]);
  expect([resultA.status, resultB.status, resultAfter.status, summary.succeeded]).toEqual([
    'DONE',
    'DONE',
    'DONE',
    2,
  ]);

  const history = (workflowId: string, runId?: string) =>
    cluster.client.workflow.getHandle(workflowId, runId).fetchHistory();
  const historyA = await history(onA.workflowId);
  const historyB = await history(onB.workflowId);
  // Started on A, worked on after B became current, and only ever on A.
  expect(lastWorkflowTaskAt(historyA)).toBeGreaterThan(rolledOutAt);
  expect(buildIdsOf(historyA)).toEqual(['A']);
  // Started on B after the roll-out, finished on B after the roll-back.
  expect(lastWorkflowTaskAt(historyB)).toBeGreaterThan(rolledBackAt);
  expect(buildIdsOf(historyB)).toEqual(['B']);
  expect(buildIdsOf(await history(afterRollback.workflowId))).toEqual(['A']);
  // Describe says the same: each pipeline pinned to its version.
  for (const [handle, buildId] of [
    [onA, 'A'],
    [onB, 'B'],
    [afterRollback, 'A'],
  ] as const) {
    const { versioningInfo } = (await handle.raw.describe()).raw.workflowExecutionInfo ?? {};
    expect({
      behavior: versioningInfo?.behavior,
      buildId: versioningInfo?.deploymentVersion?.buildId,
    }).toEqual({
      behavior: PINNED,
      buildId,
    });
  }

  // The campaign's first run and its subject stayed on A. Far below subjectsPerRun, the run still
  // continued as new once its subject was done, because B had become current: the next run and
  // its subject ran on B.
  const [first, second] = summary.subjects.map((s) => s.workflowId);
  expect(buildIdsOf(await history(campaign.campaignId, firstCampaignRun))).toEqual(['A']);
  expect(buildIdsOf(await history(first!))).toEqual(['A']);
  expect(buildIdsOf(await history(campaign.campaignId))).toEqual(['B']);
  expect(buildIdsOf(await history(second!))).toEqual(['B']);
}

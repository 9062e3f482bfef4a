import { temporal } from '@temporalio/proto';
import { startCampaign, type CampaignHandle } from '../../../src/client/campaigns';
import { startPipeline } from '../../../src/client/pipelines';
import type { PollingOptions } from '../../../src/contracts/pipeline-input';
import { NAMESPACE, type Cluster } from '../harness/cluster';

const { TASK_QUEUE_TYPE_ACTIVITY } = temporal.api.enums.v1.TaskQueueType;
const { TASK_QUEUE_KIND_NORMAL } = temporal.api.enums.v1.TaskQueueKind;

/** Subjects of each campaign: all of their first provider calls wait in the backlog at once. */
const SUBJECTS_PER_CAMPAIGN = 5;

/**
 * That the server applies priority and fairness on the provider task queue (its dynamic config):
 * with no provider worker polling, two campaigns (X, then Y: priority 4, a fairness key each) and
 * then an interactive pipeline (default priority 3) each put their first provider call (create the
 * model) in the provider queue's backlog. Then one provider worker starts that runs one activity
 * at a time, against a provider without faults, so the order the provider creates models in (its
 * ids count up) is the order the server dispatched the calls in. Priority: the interactive call,
 * queued last, goes first. Fairness: X's and Y's calls alternate, where first-in-first-out would
 * dispatch all of X's before any of Y's.
 */
export async function checkPriorityAndFairness(
  cluster: Cluster,
  options: { providerUrl: string; polling: PollingOptions; note: (line: string) => void },
): Promise<{ order: string[] }> {
  const { note } = options;
  const taskQueue = `cluster-dispatch-${Date.now()}`;
  const providerTaskQueue = `${taskQueue}-provider`;
  // Each half of `avatar-pipeline worker` is pointed at a queue nothing is sent to.
  const idleQueue = `${taskQueue}-idle`;
  const env = { PROVIDER_BASE_URL: options.providerUrl };
  const workflows = await cluster.startWorker('dispatch-workflows', {
    ...env,
    TEMPORAL_TASK_QUEUE: taskQueue,
    PROVIDER_TASK_QUEUE: idleQueue,
  });

  const backlogReaches = (count: number) =>
    cluster.waitFor(`${count} provider calls in the backlog of ${providerTaskQueue}`, async () => {
      return (await providerBacklog(cluster, providerTaskQueue)).total === count;
    });
  const startCampaignOf = (label: string) =>
    startCampaign(
      cluster.client,
      Array.from({ length: SUBJECTS_PER_CAMPAIGN }, (_, i) => ({
        subjectId: `${label}-${i + 1}`,
        gender: 1 as const,
        styles: [3],
        images: cluster.selfies.files,
        mainImageIndex: 0,
        row: i + 2,
      })),
      {
        taskQueue,
        providerTaskQueue,
        manifestDir: cluster.manifestDir,
        campaignId: `${taskQueue}-${label}`,
        options: { maxInFlight: SUBJECTS_PER_CAMPAIGN, polling: options.polling },
      },
    );

  const campaigns = new Map<string, CampaignHandle>();
  campaigns.set('X', await startCampaignOf('X'));
  await backlogReaches(SUBJECTS_PER_CAMPAIGN);
  campaigns.set('Y', await startCampaignOf('Y'));
  await backlogReaches(2 * SUBJECTS_PER_CAMPAIGN);
  const interactive = await startPipeline(
    cluster.client,
    { images: cluster.selfies.files, styles: [3], gender: 2, polling: options.polling },
    { taskQueue, providerTaskQueue },
  );
  await backlogReaches(2 * SUBJECTS_PER_CAMPAIGN + 1);
  note(
    `provider backlog by priority: ${JSON.stringify((await providerBacklog(cluster, providerTaskQueue)).byPriority)}`,
  );

  const provider = await cluster.startWorker('dispatch-provider', {
    ...env,
    TEMPORAL_TASK_QUEUE: idleQueue,
    PROVIDER_TASK_QUEUE: providerTaskQueue,
    WORKER_MAX_CONCURRENT_ACTIVITIES: '1',
  });
  const [interactiveResult, x, y] = await Promise.all([
    interactive.result(),
    campaigns.get('X')!.result(),
    campaigns.get('Y')!.result(),
  ]);
  await Promise.all([workflows.process.stop(), provider.process.stop()]);

  const models: [number, string][] = [
    [interactiveResult.modelId!, 'I'],
    ...x.subjects.map((s): [number, string] => [s.modelId!, 'X']),
    ...y.subjects.map((s): [number, string] => [s.modelId!, 'Y']),
  ];
  const order = models.sort(([a], [b]) => a - b).map(([, label]) => label);
  note(`models created in the order: ${order.join(' ')}`);
  return { order };
}

/** The provider queue's activity backlog as the server reports it, in all and by priority key. */
async function providerBacklog(
  cluster: Cluster,
  queue: string,
): Promise<{ total: number; byPriority: Record<string, number> }> {
  const described = await cluster.client.workflowService.describeTaskQueue({
    namespace: NAMESPACE,
    taskQueue: { name: queue, kind: TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TASK_QUEUE_TYPE_ACTIVITY,
    reportStats: true,
  });
  const byPriority = Object.fromEntries(
    Object.entries(described.statsByPriorityKey ?? {}).map(([key, stats]) => [
      key,
      Number(stats.approximateBacklogCount ?? 0),
    ]),
  );
  return { total: Number(described.stats?.approximateBacklogCount ?? 0), byPriority };
}

import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { temporal } from '@temporalio/proto';
import { startCampaign } from '@avatar-pipeline/client/campaign/campaigns';
import { campaignShare } from '@avatar-pipeline/client/contracts/campaign/campaign-share';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import type { PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';
import { simulatorStatsSchema } from '../../../src/simulator/stats-schema';
import { NAMESPACE, type Cluster } from '../harness/cluster';
import { listed } from '../harness/visibility';

const { TASK_QUEUE_TYPE_ACTIVITY } = temporal.api.enums.v1.TaskQueueType;
const { TASK_QUEUE_KIND_NORMAL } = temporal.api.enums.v1.TaskQueueKind;

/** Subjects of each campaign: all of their first provider calls wait in the backlog at once. */
const SUBJECTS_PER_CAMPAIGN = 5;
/** Who asked for a model, told apart at the provider by the one style each asks for. */
const STYLE_OF = { X: 3, Y: 5, I: 7 } as const;
type Label = keyof typeof STYLE_OF;

/**
 * That the server applies priority and fairness on the provider task queue (its dynamic config):
 * with no provider worker polling, two campaigns of two tenants (X, then Y: priority 4, a fairness
 * key each: their tenant) and then an interactive pipeline (I, default priority 3) each put their
 * first provider call (create the model) in the provider queue's backlog. Then one provider worker starts that runs one
 * activity at a time, against a provider of this check's own without faults, so the order the
 * provider created the models in (its ids count up) is the order the server dispatched the calls
 * in. Resolves to that order, e.g. I X Y X Y …: priority puts the interactive call, queued last,
 * first; fairness makes X and Y take turns, where first-in-first-out gives X X X X X Y Y Y Y Y.
 */
export async function dispatchOrder(
  cluster: Cluster,
  options: { polling: PollingOptions; note: (line: string) => void },
): Promise<Label[]> {
  const { note } = options;
  const taskQueue = `cluster-dispatch-${Date.now()}`;
  const placement = placementFrom({ taskQueue });
  const { providerTaskQueue } = placement;
  // Each half of `avatar-pipeline worker` is pointed at a queue nothing is sent to.
  const idleQueue = `${taskQueue}-idle`;
  const providerUrl = await cluster.startSimulator('dispatch-simulator', []);
  const workflows = await cluster.startWorker('dispatch-workflows', {
    PROVIDER_BASE_URL: providerUrl,
    TEMPORAL_TASK_QUEUE: taskQueue,
    PROVIDER_TASK_QUEUE: idleQueue,
  });

  const backlogReaches = (count: number) =>
    cluster.waitFor(
      `${count} provider calls in the backlog of ${providerTaskQueue}`,
      async () => (await providerBacklog(cluster, providerTaskQueue)).total === count,
    );
  const startCampaignOf = (label: 'X' | 'Y') =>
    startCampaign(
      cluster.client,
      Array.from({ length: SUBJECTS_PER_CAMPAIGN }, (_, i) => ({
        subjectId: `${label}-${i + 1}`,
        gender: 1 as const,
        styles: [STYLE_OF[label]],
        images: cluster.selfies.files,
        mainImageIndex: 0,
        row: i + 2,
      })),
      {
        ...placement,
        store: cluster.store,
        campaignId: `${taskQueue}-${label}`,
        share: campaignShare(`tenant-${label.toLowerCase()}`),
        options: { maxInFlight: SUBJECTS_PER_CAMPAIGN, polling: options.polling },
      },
    );

  await startCampaignOf('X');
  await backlogReaches(SUBJECTS_PER_CAMPAIGN);
  await startCampaignOf('Y');
  await backlogReaches(2 * SUBJECTS_PER_CAMPAIGN);
  await startPipeline(
    cluster.client,
    { images: cluster.selfies.files, styles: [STYLE_OF.I], gender: 2, polling: options.polling },
    placement,
  );
  await backlogReaches(2 * SUBJECTS_PER_CAMPAIGN + 1);
  note(
    `provider backlog by priority: ${JSON.stringify((await providerBacklog(cluster, providerTaskQueue)).byPriority)}`,
  );

  const provider = await cluster.startWorker('dispatch-provider', {
    PROVIDER_BASE_URL: providerUrl,
    TEMPORAL_TASK_QUEUE: idleQueue,
    PROVIDER_TASK_QUEUE: providerTaskQueue,
    WORKER_MAX_CONCURRENT_ACTIVITIES: '1',
  });
  const labelOf = new Map<number, Label>(
    Object.entries(STYLE_OF).map(([label, style]) => [style, label as Label]),
  );
  let order: Label[] = [];
  await cluster.waitFor('every model to be created', async () => {
    const answer = await fetch(`${providerUrl}/__sim/stats`);
    const { orders } = simulatorStatsSchema.parse(await answer.json());
    order = orders
      .filter((o) => o.kind === 'model')
      .sort((a, b) => a.id - b.id)
      .map((o) => labelOf.get(o.styles[0]!)!);
    return order.length === 2 * SUBJECTS_PER_CAMPAIGN + 1;
  });
  note(`models created in the order: ${order.join(' ')}`);

  // The order is all this check needs: the runs end here rather than run to their end.
  await Promise.all([workflows.process.stop(), provider.process.stop()]);
  const open = await listed(cluster, `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`);
  await Promise.all(
    open.map((id) =>
      cluster.client.workflow
        .getHandle(id)
        .terminate('dispatch order seen')
        .catch(() => undefined),
    ),
  );
  return order;
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

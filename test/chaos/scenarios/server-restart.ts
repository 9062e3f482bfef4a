import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { ChaosStage } from '../harness/chaos-stage';
import type { ChaosSize } from '../harness/chaos-size';
import { describeProviderLoad, expectExactCounts } from '../harness/exact-counts';
import { reported, ScenarioReport } from '../harness/scenario-report';
import { waitFor } from '../../helpers/worker-process';

export interface ServerRestartOptions {
  /** Default size.serverRestarts. */
  restarts?: number;
  /** How long the server stays dead before it is started again. Default 3 s. */
  downMs?: number;
}

/**
 * Scenario 2: the Temporal dev server is SIGKILLed in mid-campaign and started again on the same
 * SQLite file and port. The worker process is not restarted: it must reconnect by itself (checked
 * by its pid polling the task queues again) and the campaign must end with exact counts.
 */
export async function serverRestartScenario(
  size: ChaosSize,
  options: ServerRestartOptions = {},
): Promise<void> {
  const restarts = options.restarts ?? size.serverRestarts;
  const downMs = options.downMs ?? 3_000;
  const report = new ScenarioReport(`Temporal dev server SIGKILLed ${restarts}x and restarted`, size.label);
  const stage = await ChaosStage.open({ name: 'server-restart', size, temporal: 'own' });
  try {
    await reported(report, async () => {
      const worker = await stage.startWorker();
      const campaign = await stage.startCampaign();
      report.note(
        `campaign ${campaign.campaignId} started on ${stage.temporal.address}, worker ${worker.pid}`,
      );
      for (let r = 1; r <= restarts; r++) {
        // Mid-campaign: a share of the subjects under way, the rest still queued or running.
        const target = Math.ceil((size.subjects * r) / (restarts + 1));
        await waitFor(
          `${target} models created before restart ${r}`,
          () => stage.provider.stats().totals.modelsCreated >= target,
          size.scenarioTimeoutMs,
        );
        const stats = stage.provider.stats();
        expect({ restart: r, running: await stage.campaignRunning(campaign) }).toEqual({
          restart: r,
          running: true,
        });
        const restarted = await stage.temporal.killAndRestart(downMs);
        report.note(
          `restart ${r}: server ${restarted.killedPid} SIGKILLed with ${stats.totals.modelsCreated} models created, ` +
            `${stats.orders.filter((o) => o.kind === 'model' && o.status === 'DONE').length} trained; ` +
            `new server ${restarted.restartedPid} ready in ${restarted.restartMs} ms`,
        );
        // The same worker process, still alive, polls the restarted server on both task queues.
        expect(worker.child.exitCode ?? worker.child.signalCode).toBeNull();
        const since = Date.now();
        await waitFor(
          `worker ${worker.pid} to poll the restarted server`,
          async () => pollsBothQueues(stage.temporal.client, stage.taskQueue, worker.pid, since),
          60_000,
        );
        report.note(`worker ${worker.pid} reconnected after ${Date.now() - since} ms`);
      }
      const summary = await stage.campaignSummary(campaign, size.scenarioTimeoutMs);
      report.note(`campaign ended: ${summary.succeeded}/${summary.total} succeeded`);
      expect(await stage.stopWorker(worker)).toBe(0);
      const stats = stage.provider.stats();
      report.note(`provider: ${describeProviderLoad(stats)}`);
      expectExactCounts(summary, stats, size);
    });
  } finally {
    await stage.close();
  }
}

/** Whether a worker of process `pid` polled the pipeline queue (workflow and activity tasks) and the provider queue since `since`. */
async function pollsBothQueues(
  client: Client,
  taskQueue: string,
  pid: number,
  since: number,
): Promise<boolean> {
  const polled = async (queue: string, type: temporal.api.enums.v1.TaskQueueType) => {
    try {
      const answer = await client.workflowService.describeTaskQueue({
        namespace: client.options.namespace,
        taskQueue: { name: queue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: type,
      });
      return answer.pollers.some((poller) => {
        const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
        return poller.identity?.startsWith(`${pid}@`) === true && seconds * 1000 >= since - 1_000;
      });
    } catch {
      return false; // the server is still coming up
    }
  };
  const { TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY } = temporal.api.enums.v1.TaskQueueType;
  const { providerTaskQueue } = placementFrom({ taskQueue });
  const checks = await Promise.all([
    polled(taskQueue, TASK_QUEUE_TYPE_WORKFLOW),
    polled(taskQueue, TASK_QUEUE_TYPE_ACTIVITY),
    polled(providerTaskQueue, TASK_QUEUE_TYPE_ACTIVITY),
  ]);
  return checks.every(Boolean);
}

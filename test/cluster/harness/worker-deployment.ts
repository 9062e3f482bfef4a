import type { temporal } from '@temporalio/proto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Cluster } from './cluster';
import { listed, temporalCli } from './visibility';

type History = temporal.api.history.v1.IHistory;

/**
 * The README's "Deploying a change" steps, as an operator types them: the `temporal worker
 * deployment` commands of the installed CLI against the cluster.
 */
export class WorkerDeployment {
  constructor(
    private readonly cluster: Cluster,
    readonly name: string,
  ) {}

  /**
   * `temporal worker deployment set-current-version`. A version exists once its workers poll
   * (both task queues), so the command is repeated until the server accepts it.
   */
  async setCurrentVersion(buildId: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await temporalCli(this.cluster, [
          'worker',
          'deployment',
          'set-current-version',
          '--deployment-name',
          this.name,
          '--build-id',
          buildId,
          '--yes',
        ]);
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await delay(500);
      }
    }
  }

  /** The drainage status `temporal worker deployment describe-version` reports: draining, drained. */
  async drainageStatus(buildId: string): Promise<string> {
    const output = await temporalCli(this.cluster, [
      'worker',
      'deployment',
      'describe-version',
      '--deployment-name',
      this.name,
      '--build-id',
      buildId,
      '--output',
      'json',
    ]);
    const status = (JSON.parse(output) as { drainageInfo?: { drainageStatus?: string } }).drainageInfo
      ?.drainageStatus;
    if (!status)
      throw new Error(`describe-version of ${this.name}:${buildId} reports no drainage status: ${output}`);
    return status;
  }

  /**
   * Open runs pinned to the version: what the server counts for its drainage status (the same
   * query), which describe-version reports only minutes later (the server rechecks every 3 min).
   */
  openPinnedRuns(buildId: string): Promise<string[]> {
    return listed(this.cluster, openPinnedRunsQuery(this.name, buildId));
  }
}

export function openPinnedRunsQuery(deploymentName: string, buildId: string): string {
  return (
    `TemporalWorkerDeploymentVersion = '${deploymentName}:${buildId}' AND ` +
    `TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'`
  );
}

/** The build ids of the workers that completed the run's workflow tasks (their version stamps). */
export function buildIdsOf(history: History): string[] {
  const ids = (history.events ?? []).flatMap((event) => {
    const completed = event.workflowTaskCompletedEventAttributes;
    return completed ? [completed.deploymentVersion?.buildId ?? '(unversioned)'] : [];
  });
  return [...new Set(ids)];
}

/** When the run's last workflow task completed, in ms since the epoch. */
export function lastWorkflowTaskAt(history: History): number {
  const last = (history.events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes).at(-1);
  const seconds = Number(last?.eventTime?.seconds ?? 0);
  return seconds * 1000 + Math.floor((last?.eventTime?.nanos ?? 0) / 1e6);
}

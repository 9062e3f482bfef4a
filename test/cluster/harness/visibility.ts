import { execFile } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Cluster } from './cluster';

const run = promisify(execFile);

/** `temporal <args>` (the installed CLI) against the cluster's server; resolves to stdout. */
export async function temporalCli(cluster: Cluster, args: string[]): Promise<string> {
  const { stdout } = await run(
    cluster.temporalCli,
    [...args, '--address', cluster.temporal.address, '--namespace', 'default'],
    { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
  );
  return stdout;
}

/** Workflow ids `temporal workflow list --query <query>` finds, sorted. */
export async function listed(cluster: Cluster, query: string): Promise<string[]> {
  const stdout = await temporalCli(cluster, ['workflow', 'list', '--query', query, '--output', 'jsonl']);
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { execution: { workflowId: string } }).execution.workflowId)
    .sort();
}

/**
 * Polls the list until it holds exactly `expected` (visibility is written asynchronously after
 * each run's change); resolves to the last list seen, for the assertion to show.
 */
export async function listedExactly(
  cluster: Cluster,
  query: string,
  expected: string[],
  timeoutMs = 30_000,
): Promise<string[]> {
  const want = JSON.stringify([...expected].sort());
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids = await listed(cluster, query);
    if (JSON.stringify(ids) === want || Date.now() > deadline) return ids;
    await delay(500);
  }
}

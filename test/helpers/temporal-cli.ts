import { execFile } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { devServerUnderTest } from './temporal-env';
import { TEST_ENV } from './test-env-vars';

const run = promisify(execFile);

/** Runs the `temporal` CLI the global setup found against the run's dev server; resolves to stdout. */
export async function temporalCli(args: string[]): Promise<string> {
  const cli = process.env[TEST_ENV.temporalCli];
  if (!cli) throw new Error(`${TEST_ENV.temporalCli} is not set: run this test in jest's "temporal" project`);
  const { address, namespace } = devServerUnderTest();
  const { stdout } = await run(cli, [...args, '--address', address, '--namespace', namespace], {
    maxBuffer: 64 * 1024 * 1024,
    timeout: 30_000,
  });
  return stdout;
}

/** Workflow ids `temporal workflow list --query <query>` finds. */
export async function listWorkflowIds(query: string): Promise<string[]> {
  const stdout = await temporalCli(['workflow', 'list', '--query', query, '--output', 'jsonl']);
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { execution: { workflowId: string } }).execution.workflowId);
}

/**
 * Polls the list until it holds exactly `expected` (visibility lags behind the run a little).
 * Resolves to the last list seen, so a test can assert on it and show what it got.
 */
export async function waitForListed(
  query: string,
  expected: string[],
  timeoutMs = 15_000,
): Promise<string[]> {
  const want = [...expected].sort();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids = (await listWorkflowIds(query)).sort();
    if (JSON.stringify(ids) === JSON.stringify(want) || Date.now() > deadline) return ids;
    await delay(200);
  }
}

/** The workflow's full history as the server stores it (`temporal workflow show --output json`). */
export function showHistory(workflowId: string): Promise<string> {
  return temporalCli(['workflow', 'show', '--workflow-id', workflowId, '--output', 'json']);
}

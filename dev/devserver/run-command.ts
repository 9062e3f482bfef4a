import { spawn } from 'node:child_process';

export interface RunCommandOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export type CommandOutcome =
  { kind: 'exited'; exitCode: number | null; signal: NodeJS.Signals | null } | { kind: 'not-found' };

/**
 * Runs an installer command with its output on our stderr (never stdout, which may carry JSON),
 * and no stdin so that nothing can wait for an answer in CI.
 */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions = {},
): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', process.stderr, process.stderr],
    });
    child.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') resolve({ kind: 'not-found' });
      else reject(err);
    });
    child.once('exit', (exitCode, signal) => resolve({ kind: 'exited', exitCode, signal }));
  });
}

export function describeOutcome(outcome: CommandOutcome): string {
  if (outcome.kind === 'not-found') return 'command not found';
  return outcome.signal ? `killed by ${outcome.signal}` : `exit code ${String(outcome.exitCode)}`;
}

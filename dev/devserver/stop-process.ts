import type { ChildProcess } from 'node:child_process';

/**
 * SIGTERM, then SIGKILL if the process has not exited after `graceMs`. The dev server shuts
 * down cleanly on SIGTERM (flushing SQLite), so the kill is only a backstop.
 */
export async function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (hasExited(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'grace-over'>((resolve) => {
    timer = setTimeout(() => resolve('grace-over'), graceMs);
  });
  try {
    if ((await Promise.race([exited, graceOver])) === 'grace-over') {
      child.kill('SIGKILL');
      await exited;
    }
  } finally {
    clearTimeout(timer);
  }
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { findPackageRoot } from '../../src/config/package-root';

const RUN_DIR_PREFIX = 'run-';

/**
 * A database directory per test run (`.data/test/run-<pid>`): several runs may be going at once
 * (a developer and an agent, two terminals), and two servers must never share one SQLite file.
 * Directories of runs whose process is gone (killed before teardown) are removed first.
 */
export function createTestRunDir(): string {
  const testDataDir = path.join(findPackageRoot(), '.data', 'test');
  mkdirSync(testDataDir, { recursive: true });
  for (const entry of readdirSync(testDataDir)) {
    const pid = Number(entry.slice(RUN_DIR_PREFIX.length));
    if (entry.startsWith(RUN_DIR_PREFIX) && Number.isInteger(pid) && !isProcessAlive(pid)) {
      rmSync(path.join(testDataDir, entry), { recursive: true, force: true });
    }
  }
  const runDir = path.join(testDataDir, `${RUN_DIR_PREFIX}${process.pid}`);
  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true });
  return runDir;
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Fills a fresh staging directory next to `finalDir`, then renames it into place. A rename is
 * atomic, so a concurrent process (two test runs, a test run and the demo) either sees no
 * install or a complete one; when two race, the loser's rename fails and its copy is discarded.
 *
 * @param finalDir where the installed files end up
 * @param expectedFile path inside the install that proves it is complete
 * @param populate writes the files into the staging directory it is given
 */
export async function installAtomically(
  finalDir: string,
  expectedFile: string,
  populate: (stagingDir: string) => Promise<void>,
): Promise<void> {
  const installedFile = path.join(finalDir, expectedFile);
  await mkdir(path.dirname(finalDir), { recursive: true });
  const stagingDir = await mkdtemp(`${finalDir}.staging-`);
  try {
    await populate(stagingDir);
    if (!existsSync(path.join(stagingDir, expectedFile))) {
      throw new Error(`The install finished but ${expectedFile} is missing from it`);
    }
    await chmod(stagingDir, 0o755); // mkdtemp makes it private; the tools are not secrets.
    await moveIntoPlace(stagingDir, finalDir, installedFile);
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
}

async function moveIntoPlace(stagingDir: string, finalDir: string, installedFile: string): Promise<void> {
  try {
    await rename(stagingDir, finalDir);
  } catch (err) {
    if (!isDestinationTaken(err)) throw err;
    if (existsSync(installedFile)) return; // Another process finished first; its copy is as good as ours.
    // A leftover without the binary (someone deleted it by hand): replace it.
    await rm(finalDir, { recursive: true, force: true });
    await rename(stagingDir, finalDir);
  }
}

function isDestinationTaken(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EEXIST' || code === 'ENOTEMPTY' || code === 'EPERM';
}

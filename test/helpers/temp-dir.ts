import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const created: string[] = [];

// Registered once, while the importing test file is being collected: jest refuses hooks declared
// inside a test or a hook, where directories are often made. Jest evaluates this module afresh for
// every test file, so each file removes its own directories when its last test is done. Root-level
// afterAll hooks run in the order declared, so this one runs before the file's own root-level
// afterAll hooks (servers, workers): nothing may write to these directories while those shut down.
afterAll(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/**
 * A fresh directory under the OS temporary directory (mkdtemp: `prefix` plus six random
 * characters), removed with everything in it after the calling test file's last test.
 */
export function temporaryDirectory(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

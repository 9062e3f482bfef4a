import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_REFERENCE_PATH, renderConfigReference } from '../../scripts/config-reference';

const PRETTIER = path.join(__dirname, '..', '..', 'node_modules', 'prettier', 'bin', 'prettier.cjs');

/** The text as `npm run docs:config` leaves it: rendered, then laid out by Prettier. */
function asWritten(markdown: string): string {
  const laidOut = spawnSync(process.execPath, [PRETTIER, '--stdin-filepath', CONFIG_REFERENCE_PATH], {
    input: markdown,
    encoding: 'utf8',
  });
  if (laidOut.status !== 0) throw new Error(`prettier failed: ${laidOut.stderr}`);
  return laidOut.stdout;
}

describe('docs/configuration.md', () => {
  test('is what `npm run docs:config` writes from the env schemas (run it after changing a variable)', async () => {
    const committed = await readFile(CONFIG_REFERENCE_PATH, 'utf8');
    expect(committed).toBe(asWritten(renderConfigReference()));
  });
});

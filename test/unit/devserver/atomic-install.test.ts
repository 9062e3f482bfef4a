import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { installAtomically } from '../../../dev/devserver/atomic-install';
import { makeTempDir } from './fake-executables';

describe('installAtomically', () => {
  let dir: string;
  beforeEach(() => (dir = makeTempDir()));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const populateWith = (content: string) => async (staging: string) => {
    await mkdir(path.join(staging, 'bin'));
    // Yield so that concurrent installs really overlap.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeFile(path.join(staging, 'bin', 'tool'), content);
  };

  it('leaves one complete install and no staging directories when several race', async () => {
    const finalDir = path.join(dir, 'pypi', 'tool-1.0');
    await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        installAtomically(finalDir, path.join('bin', 'tool'), populateWith(name)),
      ),
    );
    expect(['a', 'b', 'c']).toContain(readFileSync(path.join(finalDir, 'bin', 'tool'), 'utf8'));
    expect(readdirSync(path.dirname(finalDir))).toEqual(['tool-1.0']);
  });

  it('fails, leaving nothing behind, when the install lacks the expected file', async () => {
    const finalDir = path.join(dir, 'tool-1.0');
    await expect(installAtomically(finalDir, 'bin/tool', async () => {})).rejects.toThrow(
      /bin\/tool is missing/,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fails, leaving nothing behind, when populating fails', async () => {
    const finalDir = path.join(dir, 'tool-1.0');
    const failing = async (): Promise<void> => {
      throw new Error('pip exploded');
    };
    await expect(installAtomically(finalDir, 'bin/tool', failing)).rejects.toThrow('pip exploded');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('replaces a leftover directory whose binary was deleted', async () => {
    const finalDir = path.join(dir, 'tool-1.0');
    await mkdir(finalDir);
    writeFileSync(path.join(finalDir, 'stale'), '');
    await installAtomically(finalDir, path.join('bin', 'tool'), populateWith('fresh'));
    expect(readFileSync(path.join(finalDir, 'bin', 'tool'), 'utf8')).toBe('fresh');
    expect(existsSync(path.join(finalDir, 'stale'))).toBe(false);
  });
});

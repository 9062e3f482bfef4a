import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readLogTail } from '../../../dev/devserver/log-tail';
import { makeTempDir } from './fake-executables';

describe('readLogTail', () => {
  let dir: string;
  beforeEach(() => (dir = makeTempDir()));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('returns the last lines, ignoring output of earlier runs before the offset', () => {
    const file = path.join(dir, 'server.log');
    const earlier = 'old run: address already in use\n';
    writeFileSync(file, `${earlier}line 1\nline 2\nline 3\n`);
    expect(readLogTail(file, earlier.length, 2)).toBe('line 2\nline 3');
    expect(readLogTail(file, earlier.length)).not.toContain('old run');
  });

  it('is empty for a missing file', () => {
    expect(readLogTail(path.join(dir, 'none.log'))).toBe('');
  });
});

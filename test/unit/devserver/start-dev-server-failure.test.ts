import { readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { startDevServer } from '../../../dev/devserver/start-dev-server';
import { makeTempDir, writeFakeExecutable } from './fake-executables';

/** A stand-in for `temporal` that runs the given shell code instead of a server. */
async function fakeCli(dir: string, script: string): Promise<string> {
  const file = writeFakeExecutable(path.join(dir, 'fake-temporal'));
  await writeFile(file, `#!/bin/sh\n${script}\n`);
  return file;
}

describe('startDevServer when the server does not come up', () => {
  let dir: string;
  beforeEach(() => (dir = makeTempDir()));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const quiet = (): void => {};

  it('reports the exit and the tail of the server log', async () => {
    const temporalCli = await fakeCli(dir, 'echo "sqlite: database is locked" >&2; exit 3');
    const dbFile = path.join(dir, 'db', 'temporal.db');
    await expect(startDevServer({ dbFile, temporalCli, log: quiet })).rejects.toThrow(
      /did not start: the server exited \(exit code 3\)[\s\S]*temporal\.db\.log[\s\S]*database is locked/,
    );
  });

  it('gives up after the start timeout and kills the process', async () => {
    const pidFile = path.join(dir, 'pid');
    const temporalCli = await fakeCli(dir, `echo $$ > ${pidFile}; exec sleep 30`);
    const dbFile = path.join(dir, 'temporal.db');
    await expect(startDevServer({ dbFile, temporalCli, startTimeoutMs: 1_500, log: quiet })).rejects.toThrow(
      /not ready after 1500 ms/,
    );
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });

  it('refuses an explicitly requested port that is already taken', async () => {
    const temporalCli = await fakeCli(dir, 'exit 0');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      await expect(
        startDevServer({ dbFile: path.join(dir, 't.db'), port, temporalCli, log: quiet }),
      ).rejects.toThrow(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      blocker.close();
    }
  });
});

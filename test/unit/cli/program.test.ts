import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { buildProgram } from '../../../src/cli/program';

const names = (argv: string[]) =>
  buildProgram(['node', 'avatar-pipeline', ...argv]).commands.map((c) => c.name());

describe('the command-line program', () => {
  const every = names([]);

  it('lists every command when none is named (help, a mistyped name)', () => {
    expect(every).toEqual(
      expect.arrayContaining(['worker', 'run', 'train', 'generate', 'retry', 'campaign', 'campaigns']),
    );
    expect(every).toEqual(expect.arrayContaining(['models', 'orders', 'api', 'setup', 'forget', 'webhooks']));
    expect(names(['--help'])).toEqual(every);
    expect(names(['help', 'campaigns'])).toEqual(every);
    expect(names(['campain'])).toEqual(every);
  });

  it('defines only the named command, whichever it is', () => {
    for (const name of every) expect(names([name, '--help'])).toContain(name);
    expect(names(['campaigns', 'status', 'c-1'])).toEqual(['campaigns']);
    // One module defines these three: the other two come with the one named.
    expect(names(['generate'])).toEqual(['train', 'generate', 'retry']);
  });

  it('does not load the worker, the HTTP server or the manifest readers for `campaigns status`', () => {
    // Compiled code in a process of its own, as the installed command runs it (npm test builds it).
    const program = path.join(__dirname, '..', '..', '..', 'dist', 'src', 'cli', 'program.js');
    const loaded = execFileSync(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(program)}).buildProgram(['node', 'avatar-pipeline', 'campaigns', 'status', 'c-1']);` +
          'process.stdout.write(JSON.stringify(Object.keys(require.cache)))',
      ],
      { encoding: 'utf8' },
    );
    const modules = JSON.parse(loaded) as string[];
    expect(modules.some((m) => m.includes('/src/cli/commands/campaigns.js'))).toBe(true);
    for (const heavy of ['@temporalio/worker', 'fastify', 'csv-parse', '/src/worker/'])
      expect(modules.filter((m) => m.includes(heavy))).toEqual([]);
  });
});

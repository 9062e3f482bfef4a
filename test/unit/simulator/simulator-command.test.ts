import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Command, CommanderError } from 'commander';
import { registerSimulatorCommand, type StopTrigger } from '../../../src/cli/commands/simulator';
import { simulatorOptionsFromFlags } from '../../../src/cli/commands/simulator-flags';

function program(untilStopped?: StopTrigger): Command {
  const root = new Command('avatar-pipeline')
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  registerSimulatorCommand(root, untilStopped);
  return root;
}

const run = (args: string[], untilStopped?: StopTrigger) =>
  program(untilStopped).parseAsync(['node', 'avatar-pipeline', 'simulator', ...args]);

describe('avatar-pipeline simulator', () => {
  let stderr: jest.SpyInstance;
  let stdout: jest.SpyInstance;
  beforeEach(() => {
    process.exitCode = undefined;
    stderr = jest.spyOn(console, 'error').mockImplementation(() => {});
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    process.exitCode = undefined;
  });

  it.each([
    [['--fault-5xx', '2'], /--fault-5xx <rate>.*must be a number between 0 and 1/],
    [['--port', '70000'], /--port <n>.*from 0 to 65535/],
    [['--dialect', 'xml'], /--dialect/],
    [['--fault-endpoints', 'createModel,frobnicate'], /unknown endpoint frobnicate/],
    [['--first-page', '2'], /--first-page/],
    [['--page-size', '100000000'], /--page-size <n>.*from 1 to 5000/],
    [['--avatars-per-order', '100000000'], /--avatars-per-order <n>.*from 0 to 5000/],
  ])('refuses %j as a usage error', async (args, message) => {
    const failure = run(args);
    await expect(failure).rejects.toBeInstanceOf(CommanderError);
    await expect(failure).rejects.toThrow(message);
  });

  it('refuses contradictory flags with exit code 2 and a message naming them', async () => {
    await run(['--progression', 'wall', '--training-calls', '3', '--port', '0']);
    expect(process.exitCode).toBe(2);
    expect(stderr).toHaveBeenCalledWith(expect.stringContaining('--training-calls/--generation-calls'));
  });

  it('names the option when the schema refuses a value', () => {
    const result = simulatorOptionsFromFlags({
      port: 0,
      host: '127.0.0.1',
      apiKey: 'k',
      dialect: 'contract',
      basePath: '/rest api',
      progress: true,
    });
    expect(result).toEqual({ ok: false, problems: ['--base-path: must be a path like /rest/api'] });
  });

  it('reports a port in use with exit code 2', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      await run(['--port', String(port)]);
      expect(process.exitCode).toBe(2);
      expect(stderr).toHaveBeenCalledWith(expect.stringContaining(`--port ${port}: already in use`));
    } finally {
      blocker.close();
    }
  });

  it('prints the URL, serves with the flags given, and stops cleanly', async () => {
    let answered: unknown;
    await run(
      [
        '--port',
        '0',
        '--api-key',
        'cli-key',
        '--dialect',
        'variant',
        '--base-path',
        '/rest/api',
        '--progression',
        'calls',
      ],
      async (simulator) => {
        const res = await fetch(`${simulator.url}/model/list`, {
          headers: { Authorization: 'Bearer cli-key' },
        });
        answered = await res.json();
        return 'test';
      },
    );
    expect(answered).toEqual({ models: [] });
    expect(stdout).toHaveBeenCalledWith(expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/rest\/api\n$/));
    expect(process.exitCode).toBe(0);
  });

  it('takes the API key from PROVIDER_API_KEY when no flag is given', async () => {
    process.env.PROVIDER_API_KEY = 'env-key';
    try {
      let status = 0;
      await run(['--port', '0'], async (simulator) => {
        status = (
          await fetch(`${simulator.url}/styles/list`, { headers: { Authorization: 'Bearer env-key' } })
        ).status;
        return 'test';
      });
      expect(status).toBe(200);
    } finally {
      delete process.env.PROVIDER_API_KEY;
    }
  });
});

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { CLI_BIN, cliEnv, runCli } from '../helpers/run-cli';
import { devServerUnderTest, makeScratchDir } from '../helpers/temporal-env';

/** `avatar-pipeline api` as users run it: the compiled command in its own process (`npm test` builds it first). */
describe('avatar-pipeline api command', () => {
  test('refuses to start without API_TOKENS: exit 2 naming the variable', async () => {
    const outcome = await runCli(['api', '--port', '0'], { API_TOKENS: '' }, { timeoutMs: 20_000 });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/API_TOKENS: is empty/);
    expect(outcome.stdout).toBe('');
  });

  const TOKEN = 'cli-token-0123456789';
  test.each([
    ['a malformed entry', { API_TOKENS: `acme:${TOKEN}:x` }, /API_TOKENS: entry 1 is malformed/],
    [
      'a token under two tenants',
      { API_TOKENS: `acme:${TOKEN},beta:${TOKEN}` },
      /API_TOKENS: entry 2 lists a token that also belongs to tenant "acme"/,
    ],
    ['a bad tenant id', { API_TOKENS: `ACME:${TOKEN}` }, /API_TOKENS: entry 1 has a bad tenant id/],
    [
      'a bad tenants file',
      { API_TOKENS: TOKEN, API_TENANTS_FILE: 'no-such-tenants.yaml' },
      /API_TENANTS_FILE: cannot read .*no-such-tenants\.yaml/,
    ],
  ])('refuses %s: exit 2 naming the variable, nothing started', async (_name, env, message) => {
    const outcome = await runCli(['api', '--port', '0'], env, { timeoutMs: 20_000 });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(message);
    // Nothing listens: the URL is the first thing a started API prints.
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).not.toContain('listening');
    expect(outcome.stderr).not.toContain(TOKEN);
  });

  test('refuses a bad port with exit 2', async () => {
    const outcome = await runCli(['api', '--port', 'eighty'], { API_TOKENS: 't' }, { timeoutMs: 20_000 });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('API_PORT');
  });

  test('serves on the given port, checks tokens, and stops cleanly on SIGTERM', async () => {
    const { address, namespace } = devServerUnderTest();
    const dir = await makeScratchDir('api-command');
    const child = spawn(process.execPath, [CLI_BIN, 'api', '--port', '0', '--host', '127.0.0.1'], {
      env: cliEnv({
        API_TOKENS: 'cli-token-0123456789',
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
        IMAGE_ROOTS: dir,
        BLOB_DIR: await makeScratchDir('api-command-blobs'),
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const [first] = (await once(child.stdout, 'data')) as [Buffer];
      const url = first.toString().trim();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect((await fetch(`${url}/v1/styles`)).status).toBe(401);
      const unknown = await fetch(`${url}/v1/pipelines/avatar-pipeline-none`, {
        headers: { authorization: 'Bearer cli-token-0123456789' },
      });
      expect(unknown.status).toBe(404);

      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
      expect(stderr).toContain('SIGTERM received');
      expect(stderr).not.toContain('cli-token-0123456789');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

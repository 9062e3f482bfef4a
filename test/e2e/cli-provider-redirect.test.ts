import { reply, startTestHttpServer, type TestHttpServer } from '../fixtures/http-test-server';
import { runCli } from '../helpers/run-cli';
import { requireCompiledCli } from '../helpers/worker-process';

/*
 * A provider answering 302 to a listener on loopback had `avatar-pipeline styles` print that
 * listener's answer as the styles list, with exit 0. The provider client follows no redirect.
 */
describe('the CLI against a provider that redirects', () => {
  let provider: TestHttpServer;
  let inside: TestHttpServer;

  beforeAll(async () => {
    requireCompiledCli();
    inside = await startTestHttpServer(reply(200, [{ id: 99, title: 'Internal only' }]));
    provider = await startTestHttpServer((_req, res) =>
      res.writeHead(302, { location: `${inside.origin}/admin/styles` }).end(),
    );
  });
  afterAll(async () => {
    await provider?.close();
    await inside?.close();
  });

  it('styles fails naming the redirect, and the redirect target hears nothing', async () => {
    const outcome = await runCli(['styles'], {
      PROVIDER_BASE_URL: provider.origin,
      PROVIDER_API_KEY: 'stub-key',
    });
    expect(outcome.code).not.toBe(0);
    expect(outcome.stderr).toContain('HTTP 302');
    expect(outcome.stderr).toContain('redirect');
    expect(outcome.stdout).not.toContain('Internal only');
    expect(`${outcome.stdout}${outcome.stderr}`).not.toContain(inside.origin);
    expect(provider.requests).toHaveLength(1);
    expect(inside.requests).toEqual([]);
  });
});

import { runCli } from '../helpers/run-cli';
import { writeSelfies } from '../helpers/selfie-files';
import { requireCompiledCli } from '../helpers/worker-process';

/**
 * Connection settings the CLI refuses before it connects anywhere: exit 2, the variable named. No
 * server is needed, so these are not rows of the bad-input matrix, whose setup runs every row.
 */
describe('avatar-pipeline with bad Temporal connection settings', () => {
  let selfiesDir = '';
  beforeAll(async () => {
    requireCompiledCli();
    selfiesDir = (await writeSelfies(2, 'cli-connection-')).dir;
  });

  // `run` reads its images before the environment, so it is given good ones.
  const run = ['run', '--images', '<selfies>', '--styles', '3', '--gender', '1'];
  test.each([
    [
      'a client certificate file that does not exist',
      ['worker'],
      {
        TEMPORAL_TLS_CLIENT_CERT_PATH: '/nonexistent/client.pem',
        TEMPORAL_TLS_CLIENT_KEY_PATH: '/nonexistent/client.key',
      },
      /TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read \/nonexistent\/client\.pem \(ENOENT\)/,
    ],
    [
      'a CA file that does not exist',
      run,
      { TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/nonexistent/ca.pem' },
      /TEMPORAL_TLS_SERVER_CA_CERT_PATH: cannot read \/nonexistent\/ca\.pem \(ENOENT\)/,
    ],
    // envconfig itself reads anything but true/1 as false: TLS would silently be off.
    [
      'TEMPORAL_TLS neither true nor false',
      run,
      { TEMPORAL_TLS: 'ture' },
      /TEMPORAL_TLS: must be true or false/,
    ],
    [
      'a malformed TEMPORAL_ADDRESS',
      ['worker'],
      { TEMPORAL_ADDRESS: 'localhost' },
      /TEMPORAL_ADDRESS: must be host:port/,
    ],
    // The profile file is not read: a profile asked for would be silently ignored.
    [
      'TEMPORAL_PROFILE',
      ['worker'],
      { TEMPORAL_PROFILE: 'prod' },
      /TEMPORAL_PROFILE: is not read: set the TEMPORAL_\* variables instead/,
    ],
    // The server's start-to-close timeout would end write attempts still waiting for an answer.
    [
      'PROVIDER_TIMEOUT_MS not below the write start-to-close timeout',
      ['worker'],
      { PROVIDER_TIMEOUT_MS: '60000' },
      /PROVIDER_TIMEOUT_MS: is 60000 ms, not below the start-to-close timeout of provider writes \(60000 ms\)/,
    ],
  ])('%s: exit 2 naming the variable', async (_case, args, env, message) => {
    const outcome = await runCli(
      args.map((arg) => (arg === '<selfies>' ? selfiesDir : arg)),
      { ...env, LOG_FORMAT: 'text' },
      { timeoutMs: 30_000 },
    );
    expect(outcome.stderr).toMatch(message);
    expect(outcome.code).toBe(2);
  });
});

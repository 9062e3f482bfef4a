import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/run-cli';

/** `avatar-pipeline webhooks …` against a blob directory of its own; no Temporal needed but for redeliver. */
describe('avatar-pipeline webhooks', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'webhooks-cli-'));
    env = {
      BLOB_DIR: dir,
      WEBHOOK_SIGNING_KEY: 'webhook-server-key-for-tests-0123456789',
      CALLBACK_PRIVATE_HOSTS: '127.0.0.1',
    };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test('add prints the secret once; list, deliveries and remove work on it', async () => {
    const added = await runCli(
      [
        'webhooks',
        'add',
        '--url',
        'http://127.0.0.1:9/hooks',
        '--events',
        'pipeline.completed,style.*',
        '--json',
      ],
      env,
    );
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const endpoint = JSON.parse(added.stdout) as { id: string; secret: string; events: string[] };
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(endpoint.events).toEqual(['pipeline.completed', 'style.*']);

    const listed = await runCli(['webhooks', 'list'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(endpoint.id);
    expect(listed.stdout).not.toContain(endpoint.secret);

    const deliveries = await runCli(['webhooks', 'deliveries', endpoint.id, '--json'], env);
    expect(deliveries.code).toBe(0);
    expect(JSON.parse(deliveries.stdout)).toEqual([]);

    expect((await runCli(['webhooks', 'remove', endpoint.id], env)).code).toBe(0);
    const again = await runCli(['webhooks', 'remove', endpoint.id], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/id/);
  }, 60_000);

  test.each([
    [['--url', 'http://127.0.0.1:9/h', '--events', 'pipeline.exploded'], /events\.0.*not an event/],
    [['--url', 'http://10.0.0.1/h'], /url.*private address/],
    [['--url', 'not a url'], /url/],
  ])(
    'add %j exits 2 naming the field, and stores nothing',
    async (args, message) => {
      const outcome = await runCli(['webhooks', 'add', ...args], env);
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toMatch(message);
      const listed = await runCli(['webhooks', 'list', '--json'], env);
      expect(JSON.parse(listed.stdout)).toEqual([]);
    },
    60_000,
  );

  test('deliveries with an unknown event exits 2', async () => {
    const outcome = await runCli(
      ['webhooks', 'deliveries', 'ep_000000000000000000000000', '--event', 'nope'],
      env,
    );
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/must be one of/);
  }, 60_000);
});

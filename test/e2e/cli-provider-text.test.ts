import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { startTestHttpServer, type TestHttpServer } from '../fixtures/http-test-server';
import { uniqueBasePath } from '../helpers/e2e-pipeline';
import { runCli } from '../helpers/run-cli';
import { requireCompiledCli } from '../helpers/worker-process';

/*
 * A style name carrying terminal escapes must not clear the screen of whoever runs
 * `avatar-pipeline styles`. Provider text (style names, order messages) goes to the terminal with
 * its control characters shown as escapes, in plain output and in --json alike.
 */

/** Clear screen, cursor home, C1 CSI (red), DEL, right-to-left override. */
const HOSTILE = 'Neon\u001b[2J\u001b[H\u009b31m\u007f\u202eend';
const ESCAPED = 'Neon\\u{1b}[2J\\u{1b}[H\\u{9b}31m\\u{7f}\\u{202e}end';

/** Nothing a terminal acts on besides line breaks. */
const inert = (text: string) => !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(text.replace(/\n/g, ''));

describe('the CLI prints provider text inert', () => {
  let sim: RunningSimulator;
  let stub: TestHttpServer;

  beforeAll(async () => {
    requireCompiledCli();
    sim = await startSimulator({
      basePath: uniqueBasePath('cli-escapes'),
      styles: [
        { id: 3, name: HOSTILE },
        { id: 5, name: 'Plain' },
      ],
    });
    // A provider whose order messages carry escapes (the simulator writes its own messages).
    const orders = [
      { id: 21, parent: 0, gender: 1, styles: [3], status: 'ERROR', message: HOSTILE },
      { id: 22, parent: 21, gender: 1, styles: [3], status: 'ERROR', message: HOSTILE },
    ];
    stub = await startTestHttpServer((req, res) => {
      const body = req.url === '/model/list' ? orders.filter((o) => o.parent === 0) : orders;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  afterAll(async () => {
    await sim?.stop();
    await stub?.close();
  });

  const simEnv = () => ({ PROVIDER_BASE_URL: sim.url, PROVIDER_API_KEY: 'sim-key' });
  const stubEnv = () => ({ PROVIDER_BASE_URL: stub.origin, PROVIDER_API_KEY: 'stub-key' });

  it('styles: the name shown with its escapes visible, nothing raw', async () => {
    const outcome = await runCli(['styles'], simEnv());
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain(`    3  ${ESCAPED}\n`);
    expect(outcome.stdout).toContain('    5  Plain\n');
    expect(inert(outcome.stdout)).toBe(true);
  });

  it('styles --json: the same name for a parser, nothing raw for a terminal (C1 included)', async () => {
    const outcome = await runCli(['styles', '--json'], simEnv());
    expect(outcome.code).toBe(0);
    expect(inert(outcome.stdout)).toBe(true);
    const styles = JSON.parse(outcome.stdout) as { id: number; name: string }[];
    expect(styles.find((s) => s.id === 3)?.name).toBe(HOSTILE);
  });

  it.each(['models', 'orders', 'models --json', 'orders --json'])(
    '%s: provider messages inert',
    async (command) => {
      const outcome = await runCli(command.split(' '), stubEnv());
      expect(outcome.code).toBe(0);
      expect(inert(outcome.stdout)).toBe(true);
      if (command.endsWith('--json')) {
        expect((JSON.parse(outcome.stdout) as { message?: string }[])[0]?.message).toBe(HOSTILE);
      } else {
        expect(outcome.stdout).toContain(ESCAPED);
      }
    },
  );
});

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import type { DemoReport } from '../../dev/demo/run-demo';
import { findFreePorts, isPortFree } from '../../dev/devserver';
import { DEV_CLI, cliEnv, runCli } from '../helpers/run-cli';
import { devServerUnderTest, makeScratchDir, uniqueName } from '../helpers/temporal-env';

const ROOT = path.join(__dirname, '..', '..');
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** The promise: the demo finishes in under two minutes. */
const DEMO_BUDGET_MS = 120_000;

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function avatarsIn(report: DemoReport): number {
  return (report.result?.generations ?? []).reduce((sum, g) => sum + g.avatars.length, 0);
}

describe('npm run demo', () => {
  let browser: Browser;
  let scratch: string;

  beforeAll(async () => {
    // Debian's chromium, installed when missing (apt may take minutes on a fresh machine).
    execFileSync(path.join(ROOT, 'scripts', 'ensure-debian-packages.sh'), ['chromium=chromium'], {
      stdio: 'inherit',
      timeout: 600_000,
    });
    if (!existsSync(path.join(ROOT, 'dist', 'src', 'cli', 'main.js'))) {
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    scratch = await makeScratchDir('demo');
  }, 660_000);
  afterAll(async () => {
    await browser?.close();
  });

  /** Opens the gallery with every network request refused: it must work from its own folder. */
  async function openOffline(page: string) {
    const context = await browser.newContext();
    await context.route(/^(https?|wss?):/, (route) => route.abort());
    const tab = await context.newPage();
    await tab.goto(pathToFileURL(page).href, { waitUntil: 'load' });
    const images = await tab.$$eval('img', (imgs) =>
      imgs.map((img) => ({ src: img.getAttribute('src'), complete: img.complete, width: img.naturalWidth })),
    );
    const sections = await tab.$$eval('section', (list) => list.length);
    const link = await tab.$eval('#temporal-ui-link', (a) => a.getAttribute('href'));
    const workflowId = await tab.$eval('#workflow-id', (code) => code.textContent);
    await context.close();
    return { images, sections, link, workflowId };
  }

  it('starts its own dev server, simulator and worker, writes a gallery that loads in Chromium, and leaves nothing running', async () => {
    const [port = 0, uiPort = 0, simulatorPort = 0] = await findFreePorts(3);
    const output = path.join(scratch, 'own-server');
    const started = Date.now();
    const demo = await runCli(
      [
        'demo',
        '--output',
        output,
        '--json',
        '--db-file',
        path.join(scratch, 'demo.db'),
        '--ui-port',
        String(uiPort),
        '--simulator-port',
        String(simulatorPort),
      ],
      { TEMPORAL_ADDRESS: `127.0.0.1:${port}`, TEMPORAL_CLI: process.env.TEMPORAL_CLI ?? '' },
      { timeoutMs: DEMO_BUDGET_MS + 30_000, script: DEV_CLI },
    );
    const elapsed = Date.now() - started;
    if (demo.code !== 0) throw new Error(`demo exited ${demo.code}:\n${demo.stderr}`);
    expect(elapsed).toBeLessThan(DEMO_BUDGET_MS);

    const report = JSON.parse(demo.stdout) as DemoReport;
    expect(report.status).toBe('DONE');
    expect(report.temporal).toMatchObject({ address: `127.0.0.1:${port}`, startedHere: true });
    expect(report.simulator.port).toBe(simulatorPort);
    expect(report.avatarCount).toBe(avatarsIn(report));
    expect(report.avatarCount).toBeGreaterThan(0);
    expect(report.galleryPath).toBe(path.join(output, report.workflowId, 'index.html'));
    const link = `http://127.0.0.1:${uiPort}/namespaces/default/workflows/${report.workflowId}`;
    expect(report.temporalUiLink).toBe(link);
    // Progress went to stderr as plain lines (not a terminal), the links too.
    expect(demo.stderr).toMatch(/^stage=generating /m);
    expect(demo.stderr).toContain(link);
    // The web console's address is printed beside the Temporal UI link.
    expect(report.console?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console\/$/);
    expect(demo.stderr).toContain(`web console at ${report.console!.url}`);

    // Nothing left behind: the server's process is gone and every port is free again.
    expect(report.temporal.pid).toBeDefined();
    expect(processGone(report.temporal.pid!)).toBe(true);
    for (const p of [port, uiPort, simulatorPort]) expect(await isPortFree(p)).toBe(true);

    const gallery = await openOffline(report.galleryPath!);
    expect(gallery.images).toHaveLength(report.avatarCount);
    for (const image of gallery.images) {
      expect(image.src).toMatch(/^images\//);
      expect(image.complete).toBe(true);
      expect(image.width).toBeGreaterThan(0);
    }
    expect(gallery.sections).toBe(report.result!.generations.length);
    expect(gallery.link).toBe(link);
    expect(gallery.workflowId).toBe(report.workflowId);
    const saved = JSON.parse(
      readFileSync(path.join(output, report.workflowId, 'result.json'), 'utf8'),
    ) as unknown;
    expect(saved).toEqual(report.result);
  });

  it('with --keep reuses a running server, keeps its stack up (the UI link answers) until Ctrl-C, then stops what it started', async () => {
    const { address, uiUrl } = devServerUnderTest();
    if (!uiUrl) throw new Error('the test dev server runs without its Web UI');
    const [simulatorPort = 0] = await findFreePorts(1);
    const child = spawn(
      process.execPath,
      [
        DEV_CLI,
        'demo',
        '--keep',
        '--json',
        '--output',
        path.join(scratch, 'kept'),
        '--ui-url',
        uiUrl,
        '--simulator-port',
        String(simulatorPort),
        '--training-seconds',
        '1',
        '--generation-seconds',
        '0.5',
        '--avatars',
        '2',
        '--styles',
        '7,11',
      ],
      {
        cwd: ROOT,
        // The demo checks its real-photo samples, as it does for a user (checks on by default).
        env: cliEnv({
          TEMPORAL_ADDRESS: address,
          TEMPORAL_TASK_QUEUE: uniqueName('demo'),
          SELFIE_CHECKS: 'true',
          AVATAR_CHECKS: 'true',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const report = await new Promise<DemoReport>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          try {
            resolve(JSON.parse(stdout) as DemoReport);
          } catch {
            // not complete yet
          }
        });
        void exited.then((code) => reject(new Error(`demo exited ${code} before its report:\n${stderr}`)));
      });
      expect(report.status).toBe('DONE');
      expect(report.temporal.startedHere).toBe(false);
      expect(report.avatarCount).toBe(4);
      // Still up: the simulator serves the avatars and the UI shows the run.
      expect(await isPortFree(simulatorPort)).toBe(false);
      const ui = await fetch(report.temporalUiLink);
      expect(ui.status).toBe(200);
      await ui.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(stderr).toContain('keeps running (--keep)');
      expect(stderr).toContain('checking the 4 selfies on the check worker: one face each, one person');
      expect(stderr).toContain('the selfies passed the checks');
      expect(stderr).toContain(
        "the 4 avatars passed their checks on the check worker: the person's face, nothing unsafe",
      );
      // The web console stays up too, signed in with the printed token it serves the run.
      expect(stderr).toContain(`console:   ${report.console!.url}`);
      const consolePage = await fetch(report.console!.url);
      expect(consolePage.status).toBe(200);
      expect(consolePage.headers.get('content-security-policy')).toContain("script-src 'self'");
      await consolePage.body?.cancel();
      const apiOrigin = new URL(report.console!.url).origin;
      const run = await fetch(`${apiOrigin}/v1/pipelines/${encodeURIComponent(report.workflowId)}`, {
        headers: { authorization: `Bearer ${report.console!.token}` },
      });
      expect(((await run.json()) as { state: string }).state).toBe('completed');

      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(stderr).toContain('stopping the demo stack');
      expect(await isPortFree(simulatorPort)).toBe(true);
      await expect(fetch(report.console!.url)).rejects.toThrow();
      // The reused server belongs to someone else and keeps running.
      const stillUp = await fetch(uiUrl);
      expect(stillUp.ok).toBe(true);
      await stillUp.body?.cancel();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { startApiStack, type ApiStack } from '../helpers/api-stack';
import { launchChromium, seriousAxeViolations } from '../helpers/browser';
import { writeSelfies } from '../helpers/selfie-files';
import { makeScratchDir, uniqueName, useOwnNamespace } from '../helpers/temporal-env';
import { killAllSpawned, requireCompiledCli } from '../helpers/worker-process';

/*
 * What the web console must show, checked in Debian's Chromium against a real stack (the
 * run's dev server, a simulator, `avatar-pipeline worker` and `avatar-pipeline api`), elements
 * found by role and label only. One browser tab walks through the product in order; each page is
 * checked with axe-core. The run and campaign pages are photographed for the README. Every page
 * is then opened again on a phone (390 × 844) and a desktop (1440 × 900), where it must fit the
 * screen's width with every word whole, and is photographed at both sizes for docs/console.md.
 */
const ROOT = path.join(__dirname, '..', '..');
const TOKEN = 'console-token-0123456789abcdef';
const SCREENSHOTS = path.join(ROOT, 'docs', 'images');
const STEP_MS = 120_000;
/** The screens every page must fit: a common phone and a common laptop. */
const SCREENS = {
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  desktop: { viewport: { width: 1440, height: 900 }, isMobile: false, hasTouch: false },
} as const;
type Screen = keyof typeof SCREENS;
/** The stack's simulator timings (startApiStack). */
const SIM_PROGRESSION = { mode: 'wall', trainingMs: 1_500, generationMs: 300 } as const;

let browser: Browser;
let context: BrowserContext;
let page: Page;
let stack: ApiStack;
let dir: string;
let restoreNamespace: () => void;
let selfies: string[];
/** Requests the page made to anything but the API's origin: must stay empty. */
const foreignRequests: string[] = [];
/** Content-Security-Policy violations the page reported: must stay empty. */
const policyViolations: string[] = [];
/** Pages checked with axe-core, and what it found serious or critical on each. */
const axeFindings: Record<string, string[]> = {};
let firstRun = '';
/** Generated from the first run's page with "Generate more styles": the first run's subject's. */
let moreRun = '';
/** The campaign started with a small sample interval (its chart draws requests/s). */
let ratesCampaign = '';

beforeAll(async () => {
  requireCompiledCli();
  if (!existsSync(path.join(ROOT, 'dist', 'console', 'index.html'))) {
    throw new Error('dist/console is missing: run `npm run build` first (npm test does)');
  }
  browser = await launchChromium();
  restoreNamespace = await useOwnNamespace(uniqueName('console'));
  dir = await makeScratchDir('console');
  // A quota the workers know, so the campaign's auto window reports requests/s against it.
  stack = await startApiStack(dir, 'console', TOKEN, { PROVIDER_MAX_RPS: '40' });
  const written = await writeSelfies(2, 'console-selfies-');
  // Selfies for the manifest lie under the workers' IMAGE_ROOTS (the stack's directory).
  await mkdir(path.join(dir, 'selfies'), { recursive: true });
  selfies = [];
  for (const file of written.files) {
    const target = path.join(dir, 'selfies', path.basename(file));
    await copyFile(file, target);
    selfies.push(target);
  }
  context = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  const origin = new URL(stack.apiUrl).origin;
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('blob:') && !url.startsWith('data:')) {
      foreignRequests.push(url);
    }
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) policyViolations.push(message.text());
  });
}, 660_000);

afterAll(async () => {
  await browser?.close();
  await killAllSpawned();
  await stack?.stop();
  restoreNamespace?.();
});

/** Retries `check` (assertions included) until it passes or `timeoutMs` passes; then its last failure. */
async function eventually<T>(check: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** The DOM the page functions below read (serialized into the page: no closures; no DOM library here). */
interface PageDom {
  document: { getElementById(id: string): { textContent: string | null } | null };
  sessionStorage: object;
  localStorage: object;
}
interface DropData {
  items: { add(file: unknown): void };
}
interface ImageElement {
  loading: string;
  naturalWidth: number;
  decode(): Promise<void>;
}

/** What assistive technology reads as the element's description (its aria-describedby targets). */
function descriptionOf(locator: Locator): Promise<string> {
  return locator.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id: string) => (globalThis as unknown as PageDom).document.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim(),
  );
}

async function checkAccessibility(name: string, on: Page = page): Promise<void> {
  const serious = await seriousAxeViolations(on);
  axeFindings[name] = serious.map(
    (v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`,
  );
  expect({ page: name, violations: axeFindings[name] }).toEqual({ page: name, violations: [] });
}

async function go(link: 'Runs' | 'New run' | 'Models' | 'Campaigns' | 'Subjects'): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('link', { name: link, exact: true })
    .click();
  // The page it leads to, not the one still showing: each page's heading is its link's name.
  await page.getByRole('heading', { level: 1, name: link, exact: true }).waitFor();
}

async function runsOfApi(query = ''): Promise<Array<{ workflowId: string; subjectId?: string }>> {
  const answer = await fetch(`${stack.apiUrl}/v1/pipelines?limit=100${query}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return ((await answer.json()) as { pipelines: Array<{ workflowId: string; subjectId?: string }> })
    .pipelines;
}

/** Fills in the new-run form: selfies, styles by name, gender, subject, a short provider poll. */
async function fillNewRun(styles: string[], subject: string): Promise<void> {
  await go('New run');
  await page.getByLabel('Selfies').setInputFiles(selfies);
  await eventually(async () =>
    expect(await page.getByRole('img', { name: /^Preview of selfie-/ }).count()).toBe(2),
  );
  for (const style of styles) await page.getByRole('checkbox', { name: style, exact: true }).check();
  await page.getByRole('radio', { name: 'Woman' }).check();
  await page.getByLabel('Subject (optional)').fill(subject);
  await page.getByText('Advanced').click();
  await page.getByLabel('Poll the provider every (milliseconds)').fill('300');
}

async function startedRunId(): Promise<string> {
  const heading = page.getByRole('heading', { level: 1, name: /^Run / });
  await heading.waitFor();
  return ((await heading.textContent()) ?? '').replace(/^Run /, '');
}

async function expectBarDone(name: string): Promise<void> {
  const bar = page.getByRole('progressbar', { name, exact: true });
  await eventually(
    async () => expect(await bar.evaluate((el) => (el as unknown as { value: number }).value)).toBe(100),
    60_000,
  );
}

/** Every avatar image of the page has loaded (naturalWidth > 0); answers how many there are. */
async function loadedAvatars(on: Page = page): Promise<number> {
  const images = on.getByRole('img', { name: /avatar \d+$/ });
  await images.first().waitFor({ timeout: 60_000 });
  const widths = await images.evaluateAll((list) =>
    Promise.all(
      (list as unknown as ImageElement[]).map(async (img) => {
        img.loading = 'eager';
        await img.decode().catch(() => undefined);
        return img.naturalWidth;
      }),
    ),
  );
  expect(widths.every((width) => width > 0)).toBe(true);
  return widths.length;
}

/**
 * Run in the page (a script, as this file has no DOM types): what does not fit the screen's width.
 * The page must not scroll sideways, no element may reach past the right edge (unless an ancestor
 * clips it, as the visually hidden table headings are), and no word may be broken across lines:
 * each run of letters and digits of every rendered text has one box, unless the text may break
 * anywhere (overflow-wrap: anywhere, for long ids). States and times must sit on one line.
 */
const MISFITS_SCRIPT = `(() => {
  const width = document.documentElement.clientWidth;
  const misfits = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '') +
    ' "' + (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 40) + '"';
  if (document.documentElement.scrollWidth > width) {
    misfits.push('the page is ' + document.documentElement.scrollWidth + ' px wide in ' + width);
  }
  const clipped = (el) => {
    for (let up = el.parentElement; up; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (['hidden', 'clip'].includes(style.overflowX) || style.clipPath !== 'none') return true;
    }
    return false;
  };
  for (const el of document.body.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (box.right > width + 0.5 && !clipped(el)) misfits.push(name(el) + ' reaches ' + Math.round(box.right) + ' px');
  }
  const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let text = texts.nextNode(); text; text = texts.nextNode()) {
    const parent = text.parentElement;
    if (!parent || getComputedStyle(parent).overflowWrap === 'anywhere') continue;
    for (const word of text.data.matchAll(/[\\p{L}\\p{N}]+/gu)) {
      const range = document.createRange();
      range.setStart(text, word.index);
      range.setEnd(text, word.index + word[0].length);
      if (range.getClientRects().length > 1) misfits.push('"' + word[0] + '" is broken in ' + name(parent));
    }
  }
  for (const el of document.querySelectorAll('.state, time')) {
    if (el.getClientRects().length > 1) misfits.push(name(el) + ' takes more than one line');
  }
  return misfits;
})()`;

async function checkFits(name: string, tab: Page): Promise<void> {
  const misfits = await tab.evaluate<string[]>(MISFITS_SCRIPT);
  expect({ page: name, misfits }).toEqual({ page: name, misfits: [] });
}

/** Lists are photographed one screen high: their length says nothing about the layout. */
const ONE_SCREEN_PHOTOS = new Set(['runs', 'menu', 'models', 'campaigns']);

/** A page at one screen size: it fits, axe-core finds nothing serious, and, named so, it is photographed. */
async function checkScreen(name: string, screen: Screen, tab: Page, photo?: string): Promise<void> {
  await checkFits(`${name} (${screen})`, tab);
  await checkAccessibility(`${name} (${screen})`, tab);
  if (photo) {
    await tab.screenshot({
      path: path.join(SCREENSHOTS, `console-${photo}-${screen}.png`),
      fullPage: !ONE_SCREEN_PHOTOS.has(photo),
    });
  }
}

/**
 * One of the console's sections by its header: on a phone by touch through "Menu" (closed again
 * once the page opens), on a desktop by its link in the row.
 */
async function goOn(tab: Page, screen: Screen, link: string): Promise<void> {
  const nav = tab.getByRole('navigation', { name: 'Console' });
  if (screen === 'phone') {
    expect(await nav.isVisible()).toBe(false);
    await tab.getByRole('button', { name: 'Menu', expanded: false }).tap();
    await tab.getByRole('button', { name: 'Menu', expanded: true }).waitFor();
    await nav.getByRole('link', { name: link, exact: true }).tap();
  } else {
    expect(await tab.getByRole('button', { name: 'Menu' }).count()).toBe(0);
    await nav.getByRole('link', { name: link, exact: true }).click();
  }
  await tab.getByRole('heading', { level: 1, name: link, exact: true }).waitFor();
  if (screen === 'phone') await tab.getByRole('button', { name: 'Menu', expanded: false }).waitFor();
}

describe('the web console', () => {
  it(
    'is served at /console/ with a strict Content-Security-Policy, and signs in with an API token',
    async () => {
      const answer = await page.goto(`${stack.apiUrl}/console/`);
      const policy = (await answer?.headerValue('content-security-policy')) ?? '';
      expect(policy).toContain("script-src 'self'");
      expect(policy).not.toContain('unsafe-inline');
      // Its icon, as the page names it, is served from the console's own files.
      const icon = await page.locator('link[rel="icon"]').getAttribute('href');
      const favicon = await fetch(new URL(icon!, `${stack.apiUrl}/console/`));
      expect([favicon.status, favicon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await checkAccessibility('sign in');

      await page.getByLabel('API token').fill('not-the-token-0123456789');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await eventually(async () =>
        expect(await page.getByRole('alert').textContent()).toContain('does not accept'),
      );

      // By keyboard: Enter in the field submits the form.
      await page.getByLabel('API token').fill(TOKEN);
      await page.getByLabel('API token').press('Enter');
      for (const link of ['Runs', 'New run', 'Models', 'Campaigns']) {
        await page.getByRole('link', { name: link, exact: true }).waitFor();
      }
      await checkAccessibility('runs (empty)');
      expect(
        await page.evaluate(() => Object.keys((globalThis as unknown as PageDom).sessionStorage)),
      ).toContain('avatar-console.token');
      expect(
        await page.evaluate(() => Object.keys((globalThis as unknown as PageDom).localStorage)),
      ).toHaveLength(0);
    },
    STEP_MS,
  );

  it(
    'says so at an address it has no page for, and links back to the runs',
    async () => {
      await page.goto(`${stack.apiUrl}/console/#/no-such-page/42`);
      await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
      expect(await page.locator('main').textContent()).toContain('#/no-such-page/42');
      await checkAccessibility('page not found');
      await page.getByRole('link', { name: 'See the runs' }).click();
      await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    },
    STEP_MS,
  );

  it(
    'shows the API’s field messages next to the fields and starts nothing on bad input',
    async () => {
      await go('New run');
      await page.getByRole('checkbox', { name: 'Watercolor', exact: true }).waitFor();
      await checkAccessibility('new run');
      await page.getByLabel('Selfies').setInputFiles(selfies);
      await page.getByRole('button', { name: 'Start' }).click();
      // No style, no gender: the API names both fields; each message sits in its group's description.
      const styles = page.getByRole('group', { name: 'Styles' });
      const gender = page.getByRole('group', { name: 'Gender' });
      await eventually(async () => {
        expect(await descriptionOf(styles)).toMatch(/\w/);
        expect(await descriptionOf(gender)).toMatch(/\w/);
      });
      expect(await styles.getAttribute('aria-invalid')).toBe('true');
      await checkAccessibility('new run with errors');
      // Ticking a style takes its message away (it was about no style); the gender's stays.
      await page.getByRole('checkbox', { name: 'Watercolor', exact: true }).check();
      await eventually(async () => expect(await descriptionOf(styles)).toBe(''));
      expect(await styles.getAttribute('aria-invalid')).toBeNull();
      expect(await descriptionOf(gender)).toMatch(/\w/);
      await page.getByRole('checkbox', { name: 'Watercolor', exact: true }).uncheck();
      // A selfie wider than the API decodes is named next to "Selfies" before anything is sent.
      const wide = new PNG({ width: 16_385, height: 1 });
      wide.data.fill(255);
      const wideFile = path.join(dir, 'wide.png');
      await writeFile(wideFile, PNG.sync.write(wide));
      const input = page.getByLabel('Selfies');
      await input.setInputFiles([selfies[0]!, wideFile]);
      await eventually(async () =>
        expect(await descriptionOf(input)).toContain('wide.png is 16385 × 1 pixels'),
      );
      expect(await runsOfApi()).toEqual([]);
      // Files dropped on the field are chosen as if picked, previews included.
      const bytes = [...(await readFile(selfies[1]!))];
      const dropped = await page.evaluateHandle((data) => {
        const scope = globalThis as unknown as {
          DataTransfer: new () => DropData;
          File: new (parts: unknown[], name: string, options: object) => unknown;
        };
        const transfer = new scope.DataTransfer();
        transfer.items.add(new scope.File([new Uint8Array(data)], 'dropped.png', { type: 'image/png' }));
        return transfer;
      }, bytes);
      await input.dispatchEvent('drop', { dataTransfer: dropped });
      await page.getByRole('img', { name: 'Preview of dropped.png' }).waitFor();
      expect(await descriptionOf(input)).not.toContain('pixels');
    },
    STEP_MS,
  );

  it(
    'starts a run from two selfies in two styles; the bars reach done and the archived avatars load',
    async () => {
      await fillNewRun(['Watercolor', 'Pop Art'], 'console-ana');
      // The first connection to the run's event stream drops after one event: the console must
      // reconnect and resume after it (Last-Event-ID), or the bars never move again.
      const resumedAfter: string[] = [];
      let dropped = false;
      const events = /\/v1\/pipelines\/[^/]+\/events$/;
      await page.route(events, async (route) => {
        if (!dropped) {
          dropped = true;
          const progress = {
            stage: 'creating-model',
            uploads: { done: 0, total: 2 },
            training: { polls: 0 },
            styles: [],
          };
          await route.fulfill({
            status: 200,
            contentType: 'text/event-stream',
            body: `id: 1\nevent: progress\ndata: ${JSON.stringify({ version: 1, skipped: false, progress })}\n\n`,
          });
          return;
        }
        resumedAfter.push((await route.request().headerValue('last-event-id')) ?? '');
        await route.continue();
      });
      // Pop Art takes the provider 30 s, Watercolor 0.3 s: Watercolor's avatars must show while
      // Pop Art still runs, from the run's progress (its result comes only when both are done).
      // Polling, collecting and archiving Watercolor's took over 12 s on a loaded CI machine.
      stack.sim.setOptions({ progression: { ...SIM_PROGRESSION, generationMsByStyle: { '5': 30_000 } } });
      await page.getByRole('button', { name: 'Start' }).click();
      firstRun = await startedRunId();
      for (const bar of ['Training', 'Watercolor']) await expectBarDone(bar);
      await page
        .getByRole('img', { name: /^Watercolor avatar \d+$/ })
        .first()
        .waitFor({ timeout: 30_000 });
      expect(await loadedAvatars()).toBeGreaterThanOrEqual(1);
      const popArt = page.getByRole('progressbar', { name: 'Pop Art', exact: true });
      expect(await popArt.evaluate((el) => (el as unknown as { value: number }).value)).toBeLessThan(100);
      expect(await page.getByRole('img', { name: /^Pop Art avatar \d+$/ }).count()).toBe(0);
      stack.sim.setOptions({ progression: SIM_PROGRESSION });
      await expectBarDone('Pop Art');
      await page.unroute(events);
      expect(resumedAfter[0]).toBe('1');
      await page
        .getByRole('img', { name: /^Pop Art avatar \d+$/ })
        .first()
        .waitFor({ timeout: 30_000 });
      expect(await loadedAvatars()).toBeGreaterThanOrEqual(2);
      // The page follows the run to its end: what an ended run offers replaces "Cancel run".
      await page.getByRole('link', { name: 'Generate more styles' }).waitFor({ timeout: 30_000 });
      expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
      const temporal = page.getByRole('link', { name: 'Open in Temporal UI' });
      if (stack.env.TEMPORAL_UI_URL) {
        expect(await temporal.getAttribute('href')).toMatch(
          new RegExp(`/workflows/${encodeURIComponent(firstRun)}$`),
        );
      }
      await checkAccessibility('run');
      await mkdir(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-run.png'), fullPage: true });
    },
    STEP_MS,
  );
  it(
    'retries a failed style under the same model',
    async () => {
      stack.sim.setOptions({ failStyles: [8] });
      await fillNewRun(['Watercolor', 'Cyberpunk'], 'console-ben');
      await page.getByRole('button', { name: 'Start' }).click();
      const failed = await startedRunId();
      const retry = page.getByRole('button', { name: 'Retry failed styles' });
      await retry.waitFor({ timeout: 60_000 });
      await expectBarDone('Watercolor');
      // The style the provider failed is shown failed (an empty bar: none of its avatars came), not
      // done, and the run as partial.
      const cyberpunk = page.getByRole('progressbar', { name: 'Cyberpunk', exact: true });
      expect(await cyberpunk.evaluate((el) => (el as unknown as { value: number }).value)).toBeLessThan(100);
      expect(await page.getByRole('listitem').filter({ has: cyberpunk }).textContent()).toContain('failed');
      await page
        .getByRole('definition')
        .filter({ hasText: /^partial$/ })
        .waitFor();
      stack.sim.setOptions({ failStyles: [] });
      await retry.click();
      await page.getByRole('heading', { level: 1, name: new RegExp(`^Run ${failed}/retry`) }).waitFor();
      await expectBarDone('Cyberpunk');
      await page
        .getByRole('img', { name: /^Cyberpunk avatar \d+$/ })
        .first()
        .waitFor({ timeout: 30_000 });
      await page
        .getByRole('img', { name: /^Watercolor avatar \d+$/ })
        .first()
        .waitFor();
      await loadedAvatars();
      const retryRun = await startedRunId();

      // The failed run, opened again (a reload, another tab): it offers the retry it has, and no
      // second one, and the provider made one retry order.
      await page.goto(`${stack.apiUrl}/console/#/runs/${encodeURIComponent(failed)}`);
      await page.reload();
      await page.getByRole('heading', { level: 1, name: `Run ${failed}`, exact: true }).waitFor();
      const retried = page.getByRole('link', { name: /^Failed styles retried/ });
      await retried.waitFor({ timeout: 30_000 });
      expect(await retried.getAttribute('href')).toBe(`#/runs/${encodeURIComponent(retryRun)}`);
      expect(await page.getByRole('button', { name: 'Retry failed styles' }).count()).toBe(0);
      const cyberpunkOrders = stack.sim
        .stats()
        .orders.filter((o) => o.kind === 'generation' && o.styles.includes(8));
      expect(cyberpunkOrders.map((o) => o.status)).toEqual(['ERROR', 'DONE']);
    },
    STEP_MS,
  );

  it(
    'cancels a run in training only once asked twice; its training is then shown cancelled, not done',
    async () => {
      stack.sim.setOptions({ progression: { ...SIM_PROGRESSION, trainingMs: 60_000 } });
      try {
        await fillNewRun(['Watercolor'], 'console-cal');
        await page.getByRole('button', { name: 'Start' }).click();
        await startedRunId();
        await page
          .getByRole('definition')
          .filter({ hasText: /^training$/ })
          .waitFor({ timeout: 60_000 });
        await page.getByRole('button', { name: 'Cancel run' }).click();
        const dialog = page.getByRole('dialog', { name: 'Cancel this run?' });
        await dialog.waitFor();
        // "Keep" changes nothing: the run still trains.
        await dialog.getByRole('button', { name: 'Keep' }).click();
        expect(await dialog.isVisible()).toBe(false);
        await page.getByRole('button', { name: 'Cancel run' }).click();
        await dialog.getByRole('button', { name: 'Yes, cancel the run' }).click();
        await page
          .getByRole('definition')
          .filter({ hasText: /^cancelled$/ })
          .waitFor({ timeout: 60_000 });
        const training = page.getByRole('progressbar', { name: 'Training', exact: true });
        expect(await training.evaluate((el) => (el as unknown as { value: number }).value)).toBeLessThan(100);
        expect(await page.getByRole('listitem').filter({ has: training }).textContent()).toContain(
          'cancelled',
        );
        // More styles need a trained model: not offered.
        expect(await page.getByRole('link', { name: 'Generate more styles' }).count()).toBe(0);
      } finally {
        stack.sim.setOptions({ progression: SIM_PROGRESSION });
      }
    },
    STEP_MS,
  );

  it(
    'generates more styles from a run’s page for the run’s subject',
    async () => {
      await page.goto(`${stack.apiUrl}/console/#/runs/${encodeURIComponent(firstRun)}`);
      await page.getByRole('link', { name: 'Generate more styles' }).click();
      await page.getByText('For subject console-ana').waitFor();
      await page.getByRole('checkbox', { name: 'Watercolor', exact: true }).check();
      await page.getByRole('button', { name: 'Start' }).click();
      moreRun = await startedRunId();
      expect(moreRun).not.toBe(firstRun);
      await expectBarDone('Watercolor');
      await page.getByRole('definition').filter({ hasText: 'console-ana' }).waitFor({ timeout: 60_000 });
      expect((await runsOfApi('&subjectId=console-ana')).map((r) => r.workflowId)).toContain(moreRun);
    },
    STEP_MS,
  );

  it(
    'shares a run read-only: its link opens it in a fresh browser without the API token, and no other run',
    async () => {
      await page.goto(`${stack.apiUrl}/console/#/runs/${encodeURIComponent(firstRun)}`);
      await page.getByRole('button', { name: 'Share' }).click();
      const linkField = page.getByLabel('Read-only link to this run');
      await linkField.waitFor();
      const link = await linkField.inputValue();
      expect(link).toContain(`/console/#/runs/${encodeURIComponent(firstRun)}?access_token=at1.`);
      expect(await descriptionOf(linkField)).toMatch(/until \S+/);
      // "Copy" puts the whole link on the clipboard.
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: new URL(stack.apiUrl).origin,
      });
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await page.getByText('Copied.').waitFor();
      expect(
        await page.evaluate(() =>
          (
            globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
          ).navigator.clipboard.readText(),
        ),
      ).toBe(link);
      await checkAccessibility('run with its shared link');

      const guest = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      try {
        const tab = await guest.newPage();
        const apiCalls: string[] = [];
        tab.on('request', (request) => {
          const url = new URL(request.url());
          if (url.pathname.startsWith('/v1/')) apiCalls.push(`${request.method()} ${url.pathname}`);
        });
        await tab.goto(link);
        await tab.getByRole('heading', { level: 1, name: `Run ${firstRun}` }).waitFor();
        await tab.getByRole('note').filter({ hasText: 'Signed in with a link to one run' }).waitFor();
        await eventually(async () =>
          expect(await tab.getByRole('progressbar').count()).toBeGreaterThanOrEqual(3),
        );
        // The styles by name, as the run's status answers them: the token cannot read GET /v1/styles.
        for (const style of ['Watercolor', 'Pop Art'])
          await tab.getByRole('progressbar', { name: style, exact: true }).waitFor();
        expect(await tab.getByRole('img', { name: /^Style \d+ avatar/ }).count()).toBe(0);
        expect(await loadedAvatars(tab)).toBeGreaterThanOrEqual(2);
        // Read-only: no navigation to other pages, no action on the run.
        expect(await tab.getByRole('navigation').count()).toBe(0);
        for (const action of ['Cancel run', 'Retry failed styles', 'Share'])
          expect(await tab.getByRole('button', { name: action, exact: true }).count()).toBe(0);
        expect(await tab.getByRole('link', { name: 'Generate more styles' }).count()).toBe(0);
        // The token left the address bar and sits in the tab's session storage, as the API token would.
        expect(tab.url()).not.toContain('access_token');
        const stored = await tab.evaluate(() =>
          Object.keys((globalThis as unknown as PageDom).sessionStorage),
        );
        expect(stored).toContain('avatar-console.shared-link');
        expect(stored).not.toContain('avatar-console.token');
        // The console used the token for the run's status and events only.
        const runPath = `/v1/pipelines/${encodeURIComponent(firstRun)}`;
        expect(
          apiCalls.filter((call) => call !== `GET ${runPath}` && call !== `GET ${runPath}/events`),
        ).toEqual([]);
        await checkAccessibility('shared run', tab);

        // Another run of the same tenant is not opened by the token: the API does not know it.
        const other = (await runsOfApi()).find((run) => run.workflowId !== firstRun)!.workflowId;
        await tab.goto(`${new URL(link).origin}/console/#/runs/${encodeURIComponent(other)}`);
        await tab.getByRole('heading', { level: 1, name: `Run ${other}` }).waitFor();
        await eventually(async () =>
          expect(await tab.getByRole('alert').textContent()).toContain('No pipeline'),
        );
        expect(await tab.getByRole('progressbar').count()).toBe(0);
      } finally {
        await guest.close();
      }
    },
    STEP_MS,
  );

  it(
    'lists the models, each DONE one with "Generate" for more styles',
    async () => {
      await go('Models');
      const generate = page.getByRole('link', { name: /^Generate/ }).first();
      await generate.waitFor();
      await checkAccessibility('models');
      await generate.click();
      await page.getByRole('checkbox', { name: 'Film Noir', exact: true }).check();
      await checkAccessibility('generate');
      await page.getByRole('button', { name: 'Start' }).click();
      await startedRunId();
      await expectBarDone('Film Noir');
      await page
        .getByRole('img', { name: /^Film Noir avatar \d+$/ })
        .first()
        .waitFor({ timeout: 30_000 });
    },
    STEP_MS,
  );

  it(
    'lists runs newest first, filtered by subject and state',
    async () => {
      await go('Runs');
      const table = page.getByRole('table', { name: 'Newest first' });
      await table.waitFor();
      const newest = (await runsOfApi())[0]!.workflowId;
      await eventually(async () =>
        expect(await table.getByRole('row').nth(1).getByRole('link').textContent()).toBe(newest),
      );
      await checkAccessibility('runs');
      await page.getByRole('textbox', { name: 'Subject' }).fill('console-ana');
      await page.getByRole('button', { name: 'Filter' }).click();
      // The first run and what was generated later under its model are the subject's.
      const ofAna = (await runsOfApi('&subjectId=console-ana')).map((r) => r.workflowId);
      expect(ofAna).toEqual(expect.arrayContaining([firstRun, moreRun]));
      await eventually(async () => {
        const links = await table.getByRole('link').allTextContents();
        expect(links).toEqual(ofAna);
      });
      await page.getByLabel('State').selectOption('failed');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByRole('status').filter({ hasText: 'No runs match' }).waitFor();
    },
    STEP_MS,
  );

  it(
    'keeps the runs list live through its event stream: a run started elsewhere appears and reaches completed without a reload',
    async () => {
      await go('Runs');
      const table = page.getByRole('table', { name: 'Newest first' });
      await table.waitFor();
      // Every list request from here on must be the stream (Accept: text/event-stream), not a re-read.
      const listReads: string[] = [];
      const onRequest = (request: { url(): string; headers(): Record<string, string> }) => {
        const url = new URL(request.url());
        if (url.pathname === '/v1/pipelines') listReads.push(request.headers().accept ?? '');
      };
      page.on('request', onRequest);
      await page.evaluate(() => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true));
      try {
        const answer = await fetch(`${stack.apiUrl}/v1/pipelines`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            images: selfies,
            styles: [3],
            gender: 2,
            subjectId: 'console-live',
            polling: { initialIntervalMs: 300, minIntervalMs: 200, maxIntervalMs: 1_000 },
          }),
        });
        expect(answer.status).toBe(202);
        const live = ((await answer.json()) as { workflowId: string }).workflowId;
        const row = table
          .getByRole('row')
          .filter({ has: page.getByRole('link', { name: live, exact: true }) });
        await row.waitFor({ timeout: 30_000 });
        expect(await table.getByRole('row').nth(1).getByRole('link').textContent()).toBe(live);
        await eventually(async () => expect(await row.textContent()).toContain('completed'), 60_000);
        expect(
          await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded),
        ).toBe(true);
      } finally {
        page.off('request', onRequest);
      }
      expect(listReads.filter((accept) => !accept.includes('text/event-stream'))).toEqual([]);
    },
    STEP_MS,
  );

  it(
    'lists every invalid row of a manifest and starts nothing',
    async () => {
      const manifest = path.join(dir, 'bad.csv');
      await writeFile(
        manifest,
        `subjectId,gender,styles,selfies\ncamp-a,1,3,${selfies.join(';')}\ncamp-b,3,3,${selfies[0]}\n`,
      );
      await go('Campaigns');
      await checkAccessibility('campaigns');
      await page.getByLabel('Manifest').setInputFiles(manifest);
      await page.getByLabel('Campaign id (optional)').fill('console-bad');
      await page.getByRole('button', { name: 'Start campaign' }).click();
      const rows = page.getByRole('table', { name: 'Invalid rows' }).getByRole('row');
      await rows.nth(1).waitFor();
      expect(await rows.count()).toBe(2);
      const cells = await rows.nth(1).getByRole('cell').allTextContents();
      expect(cells[1]).toBe('gender');
      await checkAccessibility('campaigns with invalid rows');
      const answer = await fetch(`${stack.apiUrl}/v1/campaigns/console-bad`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(answer.status).toBe(404);
    },
    STEP_MS,
  );

  it(
    'runs a small campaign: pause and resume, counts, a failed subject retried, the requests-per-second chart, the results CSV',
    async () => {
      const manifest = path.join(dir, 'good.csv');
      await writeFile(
        manifest,
        `subjectId,gender,styles,selfies\ncamp-a,1,3,${selfies.join(';')}\ncamp-b,2,5,${selfies[1]}\n`,
      );
      stack.sim.setOptions({ failStyles: [5] });
      await page.getByLabel('Manifest').setInputFiles(manifest);
      await page.getByLabel('Campaign id (optional)').fill('console-spring');
      await page.getByRole('button', { name: 'Start campaign' }).click();
      // Campaign ids carry their tenant: `<tenant>.console-spring`.
      await page.getByRole('heading', { level: 1, name: /^Campaign [a-z0-9-]+\.console-spring$/ }).waitFor();
      // Paused, it starts no more subjects; resumed, it carries on.
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.getByRole('button', { name: 'Resume' }).click({ timeout: 30_000 });
      await page.getByRole('button', { name: 'Pause' }).waitFor({ timeout: 30_000 });
      const counts = page.getByRole('group', { name: 'Subjects by state' });
      // camp-b's only style fails: the subject fails, and is retried once the provider recovers.
      await eventually(
        async () => expect(await counts.textContent()).toMatch(/Done\s*1.*Failed\s*1/),
        90_000,
      );
      stack.sim.setOptions({ failStyles: [] });
      await page.getByRole('button', { name: 'Retry failed subjects' }).click();
      await eventually(async () => expect(await counts.textContent()).toMatch(/Done\s*2/), 90_000);
      const chart = page.getByRole('img', { name: /requests per second/ });
      await chart.waitFor();
      // Points per drawn line (window, subjects in flight, and requests/s once the workers report it).
      const lines = await chart.evaluate((svg) =>
        Array.from(svg.querySelectorAll('polyline')).map(
          (line) =>
            (line as unknown as { getAttribute(name: string): string | null })
              .getAttribute('points')
              ?.split(' ').length ?? 0,
        ),
      );
      expect(Math.max(0, ...lines)).toBeGreaterThanOrEqual(2);
      await checkAccessibility('campaign');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download results (CSV)' }).click(),
      ]);
      const csv = await readFile((await download.path())!, 'utf8');
      expect(csv).toContain('camp-a');
      expect(csv).toContain('camp-b');
    },
    STEP_MS,
  );

  it(
    'draws the accepted provider requests per second against the quota while the window is full',
    async () => {
      // A window of one that samples every 300 ms, with subjects waiting: it measures the provider's
      // requests/s from its second sample on (the default samples every 10 s).
      const subjects = ['rate-a', 'rate-b', 'rate-c'].map((subjectId) => ({
        subjectId,
        gender: 1,
        styles: [3],
        selfies,
      }));
      const answer = await fetch(`${stack.apiUrl}/v1/campaigns`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          campaignId: 'console-rates',
          subjects,
          options: {
            autoWindow: { initial: 1, sampleEveryMs: 300 },
            polling: { initialIntervalMs: 300, minIntervalMs: 200, maxIntervalMs: 500 },
          },
        }),
      });
      expect(answer.status).toBe(202);
      ratesCampaign = ((await answer.json()) as { campaignId: string }).campaignId;
      await page.goto(`${stack.apiUrl}/console/#/campaigns/${encodeURIComponent(ratesCampaign)}`);
      const chart = page.getByRole('img', { name: /requests per second/ });
      const pointsOf = (label: string) =>
        chart
          // Each line is named by its SVG <title>.
          .locator('polyline', { has: page.locator('title', { hasText: label }) })
          .evaluateAll((lines) =>
            lines.flatMap(
              (line) =>
                (line as unknown as { getAttribute(name: string): string | null })
                  .getAttribute('points')
                  ?.split(' ') ?? [],
            ),
          );
      await eventually(async () => {
        expect((await pointsOf('accepted provider requests/s')).length).toBeGreaterThanOrEqual(2);
        expect((await pointsOf('quota (requests/s)')).length).toBeGreaterThanOrEqual(2);
      }, 90_000);
      expect(await chart.locator('desc').textContent()).toMatch(
        /accepted provider requests per second of a quota of 40/,
      );
      await checkAccessibility('campaign with requests per second');
      // The chart draws the progress's numbers (window.providerRps and window.quotaRps), not its text.
      const status = (await (
        await fetch(`${stack.apiUrl}/v1/campaigns/${encodeURIComponent(ratesCampaign)}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        })
      ).json()) as { progress: { window: { providerRps?: unknown; quotaRps?: unknown } } };
      expect(status.progress.window).toMatchObject({ providerRps: expect.any(Number), quotaRps: 40 });
      const counts = page.getByRole('group', { name: 'Subjects by state' });
      await eventually(async () => expect(await counts.textContent()).toMatch(/Done\s*3/), 90_000);
      // The README's campaign: this one's chart has every line, measured requests/s and quota too.
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-campaign.png'), fullPage: true });
    },
    STEP_MS,
  );

  it(
    'lists the campaigns of the API (GET /v1/campaigns), newest first, not only those started from the tab',
    async () => {
      await go('Campaigns');
      const list = page.getByRole('table', { name: 'Campaigns, newest first' });
      await list.waitFor();
      const ids = await list
        .getByRole('row')
        .evaluateAll((rows) =>
          rows.slice(1).map((row) => (row as unknown as { textContent: string }).textContent),
        );
      // The campaign started with a JSON request (not from the tab) is there, and it ended last.
      expect(ids[0]).toContain(ratesCampaign);
      expect(ids.some((row) => /^[a-z0-9-]+\.console-spring/.test(row))).toBe(true);
      expect(ids[0]).toMatch(/completed\s*3/);
      await checkAccessibility('campaigns list');
      await list.getByRole('link', { name: ratesCampaign, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: `Campaign ${ratesCampaign}` }).waitFor();
    },
    STEP_MS,
  );

  it(
    'shares a campaign read-only: its link opens it in a fresh browser without the API token, with the chart and results and no controls',
    async () => {
      // A campaign that keeps running while it is shared: its one style takes the provider 2 minutes.
      stack.sim.setOptions({ progression: { ...SIM_PROGRESSION, generationMsByStyle: { '12': 120_000 } } });
      const answer = await fetch(`${stack.apiUrl}/v1/campaigns`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          campaignId: 'console-shared',
          subjects: [{ subjectId: 'shared-a', gender: 1, styles: [12], selfies }],
          options: { autoWindow: { initial: 1, sampleEveryMs: 300 } },
        }),
      });
      expect(answer.status).toBe(202);
      const shared = ((await answer.json()) as { campaignId: string }).campaignId;
      try {
        await page.goto(`${stack.apiUrl}/console/#/campaigns/${encodeURIComponent(shared)}`);
        await page.getByRole('heading', { level: 1, name: `Campaign ${shared}` }).waitFor();
        await page.getByRole('button', { name: 'Pause' }).waitFor();
        await page.getByRole('button', { name: 'Share' }).click();
        const linkField = page.getByLabel('Read-only link to this campaign');
        await linkField.waitFor();
        const link = await linkField.inputValue();
        expect(link).toContain(`/console/#/campaigns/${encodeURIComponent(shared)}?access_token=at1.`);
        expect(await descriptionOf(linkField)).toMatch(/until \S+/);
        await checkAccessibility('campaign with its shared link');

        const guest = await browser.newContext({
          viewport: { width: 1200, height: 900 },
          acceptDownloads: true,
        });
        try {
          const tab = await guest.newPage();
          await tab.goto(link);
          await tab.getByRole('heading', { level: 1, name: `Campaign ${shared}` }).waitFor();
          await tab.getByRole('note').filter({ hasText: 'Signed in with a link to one campaign' }).waitFor();
          await tab.getByRole('group', { name: 'Subjects by state' }).waitFor();
          await tab.getByRole('img', { name: /requests per second/ }).waitFor();
          // Read-only while the campaign runs (the owner's tab still offers Pause): no control, no share.
          expect(await page.getByRole('button', { name: 'Pause' }).count()).toBe(1);
          for (const action of ['Pause', 'Resume', 'Cancel campaign', 'Retry failed subjects', 'Share'])
            expect(await tab.getByRole('button', { name: action, exact: true }).count()).toBe(0);
          expect(await tab.getByRole('navigation').count()).toBe(0);
          expect(tab.url()).not.toContain('access_token');
          const [download] = await Promise.all([
            tab.waitForEvent('download'),
            tab.getByRole('button', { name: 'Download results (CSV)' }).click(),
          ]);
          expect(await readFile((await download.path())!, 'utf8')).toMatch(/^subjectId,modelId,styleId/);
          await checkAccessibility('shared campaign', tab);
          // Another campaign is not opened by the token: the API does not know it.
          await tab.goto(`${new URL(link).origin}/console/#/campaigns/${encodeURIComponent(ratesCampaign)}`);
          await tab.getByRole('heading', { level: 1, name: `Campaign ${ratesCampaign}` }).waitFor();
          await eventually(async () =>
            expect(await tab.getByRole('alert').first().textContent()).toContain('No campaign'),
          );
        } finally {
          await guest.close();
        }
      } finally {
        stack.sim.setOptions({ progression: SIM_PROGRESSION });
        await fetch(`${stack.apiUrl}/v1/campaigns/${encodeURIComponent(shared)}/cancel`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}` },
        });
      }
    },
    STEP_MS,
  );

  it(
    'fits every page on a phone and a desktop: no sideways scrolling, no word broken, nothing for axe-core, and on a phone the links behind "Menu"',
    async () => {
      const post = async <T>(url: string, body: unknown): Promise<T> => {
        const answer = await fetch(`${stack.apiUrl}${url}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(answer.status).toBeLessThan(300);
        return (await answer.json()) as T;
      };
      // A run held for review, for the review page (signed in and through a review link).
      const { workflowId: reviewRun } = await post<{ workflowId: string }>('/v1/pipelines', {
        images: selfies,
        styles: [3],
        gender: 1,
        subjectId: 'console-screens',
        review: { required: true },
        polling: { initialIntervalMs: 300, minIntervalMs: 200, maxIntervalMs: 1_000 },
      });
      const reviewPath = `/v1/pipelines/${encodeURIComponent(reviewRun)}`;
      const runToken = await post<{ token: string }>(
        `/v1/pipelines/${encodeURIComponent(firstRun)}/access-tokens`,
        {},
      );
      const campaignToken = await post<{ token: string }>(
        `/v1/campaigns/${encodeURIComponent(ratesCampaign)}/access-tokens`,
        {},
      );
      const consoleUrl = `${stack.apiUrl}/console/`;
      let reviewUrl = '';
      try {
        for (const screen of ['phone', 'desktop'] as const) {
          const { viewport, isMobile, hasTouch } = SCREENS[screen];
          const screenContext = await browser.newContext({ viewport, isMobile, hasTouch });
          try {
            const tab = await screenContext.newPage();
            await tab.goto(consoleUrl);
            await tab.getByRole('heading', { level: 1 }).waitFor();
            await checkScreen('sign in', screen, tab);
            await tab.getByLabel('API token').fill(TOKEN);
            await tab.getByLabel('API token').press('Enter');
            await tab.getByRole('table', { name: 'Newest first' }).waitFor();
            await checkScreen('runs', screen, tab, 'runs');
            if (screen === 'phone') {
              // By keyboard: "Menu" opens with Enter, Escape closes it and gives "Menu" the focus back.
              const menu = tab.getByRole('button', { name: 'Menu' });
              await menu.focus();
              await tab.keyboard.press('Enter');
              await tab.getByRole('button', { name: 'Menu', expanded: true }).waitFor();
              await tab.getByRole('button', { name: 'Sign out' }).waitFor();
              await checkScreen('menu', screen, tab, 'menu');
              await tab.keyboard.press('Tab');
              await tab.keyboard.press('Escape');
              await tab.getByRole('button', { name: 'Menu', expanded: false }).waitFor();
              expect(
                await menu.evaluate(
                  (el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement,
                ),
              ).toBe(true);
              // And a link followed by keyboard: Enter, Tab past "Runs", Enter on "New run".
              await tab.keyboard.press('Enter');
              await tab.keyboard.press('Tab');
              await tab.keyboard.press('Tab');
              await tab.keyboard.press('Enter');
              await tab.getByRole('heading', { level: 1, name: 'New run', exact: true }).waitFor();
              await goOn(tab, screen, 'Runs');
            }
            await goOn(tab, screen, 'New run');
            await tab.getByRole('checkbox', { name: 'Watercolor', exact: true }).waitFor();
            await checkScreen('new run', screen, tab, 'new-run');
            await goOn(tab, screen, 'Models');
            await tab
              .getByRole('link', { name: /^Generate/ })
              .first()
              .waitFor();
            await checkScreen('models', screen, tab, 'models');
            await tab
              .getByRole('link', { name: /^Generate/ })
              .first()
              .click();
            await tab.getByRole('checkbox', { name: 'Film Noir', exact: true }).waitFor();
            await checkScreen('generate', screen, tab);
            await goOn(tab, screen, 'Campaigns');
            await tab.getByRole('table', { name: 'Campaigns, newest first' }).waitFor();
            await checkScreen('campaigns', screen, tab, 'campaigns');
            // The manifest with a bad row (refused: nothing starts) has its rows listed in a table too.
            await tab.getByLabel('Manifest').setInputFiles(path.join(dir, 'bad.csv'));
            await tab.getByLabel('Campaign id (optional)').fill('console-bad');
            await tab.getByRole('button', { name: 'Start campaign' }).click();
            await tab.getByRole('table', { name: 'Invalid rows' }).waitFor();
            await checkScreen('campaigns with invalid rows', screen, tab);
            await goOn(tab, screen, 'Subjects');
            await tab.getByRole('textbox', { name: 'Subject' }).waitFor();
            await checkScreen('subjects', screen, tab);
            await goOn(tab, screen, 'Usage');
            await tab.getByText(/credits spent/).waitFor();
            await checkScreen('usage', screen, tab);

            await tab.goto(`${consoleUrl}#/no-such-page/42`);
            await tab.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
            await checkScreen('page not found', screen, tab);
            await tab.goto(`${consoleUrl}#/campaigns/${encodeURIComponent(ratesCampaign)}`);
            await tab.getByRole('group', { name: 'Subjects by state' }).waitFor();
            await tab.getByRole('img', { name: /requests per second/ }).waitFor();
            await tab.getByRole('button', { name: 'Share' }).click();
            await tab.getByLabel('Read-only link to this campaign').waitFor();
            await checkScreen('campaign with its shared link', screen, tab, 'campaign');
            await tab.goto(`${consoleUrl}#/runs/${encodeURIComponent(firstRun)}`);
            await tab.getByRole('link', { name: 'Generate more styles' }).waitFor();
            expect(await loadedAvatars(tab)).toBeGreaterThanOrEqual(2);
            await tab.getByRole('button', { name: 'Share' }).click();
            await tab.getByLabel('Read-only link to this run').waitFor();
            await checkScreen('run with its shared link', screen, tab, 'run');
            await tab.goto(`${consoleUrl}#/review/${encodeURIComponent(reviewRun)}`);
            await tab.getByRole('group', { name: /^Decide on / }).waitFor({ timeout: 60_000 });
            await tab.getByRole('button', { name: 'Create a review link' }).click();
            await tab.getByLabel('Review link for this run').waitFor();
            await checkScreen('review', screen, tab);

            // Shared links, each in a tab of its own (a tab keeps one link).
            const shared = async (url: string, ready: (other: Page) => Promise<void>, name: string) => {
              const other = await screenContext.newPage();
              await other.goto(url);
              await other.getByRole('note').waitFor();
              await ready(other);
              await checkScreen(name, screen, other, name === 'shared run' ? 'shared-run' : undefined);
              await other.close();
            };
            await shared(
              `${consoleUrl}#/runs/${encodeURIComponent(firstRun)}?access_token=${runToken.token}`,
              async (other) => {
                await eventually(async () =>
                  expect(await other.getByRole('progressbar').count()).toBeGreaterThanOrEqual(3),
                );
                await loadedAvatars(other);
              },
              'shared run',
            );
            await shared(
              `${consoleUrl}#/campaigns/${encodeURIComponent(ratesCampaign)}?access_token=${campaignToken.token}`,
              async (other) => {
                await other.getByRole('img', { name: /requests per second/ }).waitFor();
              },
              'shared campaign',
            );
            if (!reviewUrl) {
              await eventually(async () => {
                const answer = await fetch(`${stack.apiUrl}${reviewPath}`, {
                  headers: { authorization: `Bearer ${TOKEN}` },
                });
                expect(((await answer.json()) as { state: string }).state).toBe('awaiting-review');
              }, 60_000);
              reviewUrl = (await post<{ url: string }>(`${reviewPath}/review-links`, { ttlSeconds: 3600 }))
                .url;
            }
            await shared(
              reviewUrl,
              async (other) => {
                await other
                  .getByRole('button', { name: /^Approve / })
                  .first()
                  .waitFor();
              },
              'review through a review link',
            );
          } finally {
            await screenContext.close();
          }
        }
      } finally {
        await fetch(`${stack.apiUrl}${reviewPath}/cancel`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}` },
        });
      }
    },
    4 * STEP_MS,
  );

  it(
    'shows every archived avatar after the simulator stopped serving its own image URLs',
    async () => {
      await stack.sim.stop();
      await page.goto(`${stack.apiUrl}/console/#/runs/${encodeURIComponent(firstRun)}`);
      await page
        .getByRole('img', { name: /^Watercolor avatar \d+$/ })
        .first()
        .waitFor();
      expect(await loadedAvatars()).toBe(16);
    },
    STEP_MS,
  );

  it(
    'erases the subject after a confirmation, shows the report, and the run is no longer served',
    async () => {
      await go('Subjects');
      await checkAccessibility('subjects');
      await page.getByRole('textbox', { name: 'Subject' }).fill('console-ana');
      await page.getByRole('button', { name: 'Erase subject…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Erase console-ana?' });
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain(firstRun);
      await checkAccessibility('erase confirmation');
      await dialog.getByRole('button', { name: 'Erase', exact: true }).click();
      const report = page.getByRole('region', { name: 'Erasure report for console-ana' });
      await report.waitFor();
      expect(await report.textContent()).toContain(firstRun);
      expect(await report.textContent()).toContain(moreRun);
      await checkAccessibility('erasure report');
      for (const run of [firstRun, moreRun]) {
        await page.goto(`${stack.apiUrl}/console/#/runs/${encodeURIComponent(run)}`);
        await page.getByRole('heading', { level: 1, name: `Run ${run}`, exact: true }).waitFor();
        await eventually(async () =>
          expect(await page.getByRole('alert').textContent()).toContain(`No pipeline ${run}`),
        );
        expect(await page.getByRole('img', { name: /avatar \d+$/ }).count()).toBe(0);
      }
    },
    STEP_MS,
  );

  it('made no request to another origin and broke no Content-Security-Policy rule', () => {
    expect(foreignRequests).toEqual([]);
    expect(policyViolations).toEqual([]);
  });
});

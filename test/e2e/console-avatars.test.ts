import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startApiStack, type ApiStack } from '../helpers/api-stack';
import { launchChromium, seriousAxeViolations } from '../helpers/browser';
import { writeSelfies } from '../helpers/selfie-files';
import { makeScratchDir, uniqueName, useOwnNamespace } from '../helpers/temporal-env';
import { killAllSpawned, requireCompiledCli } from '../helpers/worker-process';

/*
 * The avatars of a run in the console, against a real stack (dev server, simulator, `avatar-pipeline
 * worker` and `api`): a thumbnail opens its avatar full size in a modal dialog that offers it as a
 * download and moves to the next one by keyboard or, on a phone, by a swipe, a style's avatars
 * come as one zip, and a tab left open past the archived links' lifetime
 * (API_ARCHIVE_LINK_TTL_SECONDS, made short here) still shows every avatar as it is scrolled to,
 * because the page fetched fresh links before the old ones expired. A campaign's page lists its subjects with links that open their runs.
 */
const ROOT = path.join(__dirname, '..', '..');
const TOKEN = 'console-avatars-token-0123456789';
const STEP_MS = 180_000;
/** Training and generating on a busy two-core machine (other suites share it) can take minutes. */
const RUN_MS = 480_000;
/** Short enough to wait out in a test, long enough that a busy machine refreshes in time. */
const LINK_TTL_SECONDS = 10;
const AVATARS_PER_STYLE = 12;
/** Narrow and short: most of the run's avatars start far below the fold, where lazy images wait. */
const VIEWPORT = { width: 480, height: 420 };

let browser: Browser;
let context: BrowserContext;
let page: Page;
let stack: ApiStack;
let dir: string;
let restoreNamespace: () => void;
let selfies: string[];
let styleNames: string[] = [];
let workflowId = '';
let campaignId = '';
const SUBJECT = 'avatars-viewer-ana';
const CAMPAIGN_SUBJECTS = ['avatars-camp-bo', 'avatars-camp-cy'];

beforeAll(async () => {
  requireCompiledCli();
  if (!existsSync(path.join(ROOT, 'dist', 'console', 'index.html'))) {
    throw new Error('dist/console is missing: run `npm run build` first (npm test does)');
  }
  browser = await launchChromium();
  restoreNamespace = await useOwnNamespace(uniqueName('console-avatars'));
  dir = await makeScratchDir('console-avatars');
  stack = await startApiStack(
    dir,
    'console-avatars',
    TOKEN,
    {
      API_ARCHIVE_LINK_TTL_SECONDS: String(LINK_TTL_SECONDS),
      // The test polls the API while the page uses it with the same token: neither may be throttled.
      API_RATE_LIMIT_PER_MINUTE: '6000',
      // Checking dozens of avatars' faces on the CPU takes minutes, and is not what this test is about.
      AVATAR_CHECKS: 'false',
    },
    { avatarsPerOrder: AVATARS_PER_STYLE },
  );
  const written = await writeSelfies(2, 'console-avatars-selfies-');
  await mkdir(path.join(dir, 'selfies'), { recursive: true });
  selfies = [];
  for (const file of written.files) {
    const target = path.join(dir, 'selfies', path.basename(file));
    await copyFile(file, target);
    selfies.push(target);
  }
}, 660_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await killAllSpawned();
  await stack?.stop();
  restoreNamespace?.();
});

async function api<T>(method: string, url: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${stack.apiUrl}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** Retries `check` (assertions included) every half second until it passes or `timeoutMs` passes. */
async function eventually<T>(check: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

interface ImageElement {
  src: string;
  complete: boolean;
  naturalWidth: number;
  decode(): Promise<void>;
}
interface PageDom {
  document: { activeElement: { closest(selector: string): unknown; tagName: string } | null };
}

async function checkAccessibility(name: string): Promise<void> {
  const serious = await seriousAxeViolations(page);
  const found = serious.map(
    (v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`,
  );
  expect({ page: name, violations: found }).toEqual({ page: name, violations: [] });
}

/** The passed avatars of the run's page, thumbnails in page order. */
const thumbnails = () => page.locator('.gallery-style').getByRole('img', { name: / avatar \d+$/ });

async function widthsOf(images: Locator): Promise<number[]> {
  return images.evaluateAll((list) =>
    Promise.all(
      (list as unknown as ImageElement[]).map(async (img) => {
        // decode() settles once the image has loaded or failed: no waiting on a timer.
        await img.decode().catch(() => undefined);
        return img.naturalWidth;
      }),
    ),
  );
}

describe('avatars in the console', () => {
  it(
    'a run and a campaign are done',
    async () => {
      const styles = await api<{ styles: Array<{ id: number; name: string }> }>('GET', '/v1/styles');
      const chosen = styles.body.styles.slice(0, 4);
      styleNames = chosen.map((s) => s.name);
      const started = await api<{ workflowId: string }>('POST', '/v1/pipelines', {
        images: selfies,
        styles: chosen.map((s) => s.id),
        gender: 1,
        subjectId: SUBJECT,
      });
      expect(started.status).toBe(202);
      workflowId = started.body.workflowId;
      const campaign = await api<{ campaignId: string }>('POST', '/v1/campaigns', {
        subjects: CAMPAIGN_SUBJECTS.map((subjectId) => ({
          subjectId,
          gender: 2,
          styles: [chosen[0]!.id],
          selfies,
        })),
      });
      expect(campaign.status).toBe(202);
      campaignId = campaign.body.campaignId;
      const done = eventually(async () => {
        const run = await api<{ state: string; linksExpireAt?: string; progress?: { stage: string } }>(
          'GET',
          `/v1/pipelines/${encodeURIComponent(workflowId)}`,
        );
        expect(`${run.body.state} (${run.body.progress?.stage ?? 'no progress'})`).toMatch(/^completed /);
        // An answer that hands out archived links says until when they work.
        const left = Date.parse(run.body.linksExpireAt ?? '') - Date.now();
        expect(left).toBeGreaterThan(0);
        expect(left).toBeLessThanOrEqual(LINK_TTL_SECONDS * 1000);
      }, RUN_MS - 30_000);
      await done.catch((err: unknown) => {
        throw new Error(`${String(err)}\n${stack.output().slice(-4000)}`);
      });

      context = await browser.newContext({ viewport: VIEWPORT, acceptDownloads: true });
      page = await context.newPage();
      await page.goto(`${stack.apiUrl}/console/`);
      await page.getByLabel('API token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    },
    RUN_MS,
  );

  let firstSrcOfLast = '';

  it(
    'a thumbnail opens its avatar large in a modal dialog, offered as a download; the arrow keys move',
    async () => {
      await page.goto(`${stack.apiUrl}/console/#/runs/${encodeURIComponent(workflowId)}`);
      await page.getByRole('heading', { level: 1, name: `Run ${workflowId}`, exact: true }).waitFor();
      await thumbnails().first().waitFor({ timeout: 60_000 });
      expect(await thumbnails().count()).toBe(styleNames.length * AVATARS_PER_STYLE);
      // Far below the fold, the last one has not been loaded: what the expiry step below is about.
      const last = thumbnails().last();
      const lastState = await last.evaluate((img) => {
        const image = img as unknown as ImageElement;
        return { src: image.src, loaded: image.complete && image.naturalWidth > 0 };
      });
      expect(lastState.loaded).toBe(false);
      firstSrcOfLast = lastState.src;

      const style = styleNames[0]!;
      const opener = page.getByRole('button', { name: new RegExp(`^${style} avatar \\d+$`) }).first();
      await opener.click();
      const dialog = page.getByRole('dialog', { name: `${style} avatars: 1 of ${AVATARS_PER_STYLE}` });
      await dialog.waitFor();
      expect(await dialog.getAttribute('aria-modal')).toBe('true');
      // The dialog's name follows the avatar shown: the image is found in whichever dialog is open.
      const large = page.getByRole('dialog').getByRole('img');
      expect((await widthsOf(large))[0]).toBeGreaterThan(0);
      const firstAlt = await large.getAttribute('alt');

      const download = page.getByRole('dialog').getByRole('link', { name: /^Download / });
      const fileName = await download.getAttribute('download');
      expect(fileName).toMatch(/^[a-z0-9-]+-1\.png$/);
      const answer = await fetch((await download.getAttribute('href'))!);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^image\//);
      const [saved] = await Promise.all([page.waitForEvent('download'), download.click()]);
      expect(saved.suggestedFilename()).toBe(fileName);
      await checkAccessibility('avatar viewer');

      await page.keyboard.press('ArrowRight');
      await page.getByRole('dialog', { name: `${style} avatars: 2 of ${AVATARS_PER_STYLE}` }).waitFor();
      const secondAlt = await large.getAttribute('alt');
      expect(secondAlt).not.toBe(firstAlt);
      expect((await widthsOf(large))[0]).toBeGreaterThan(0);
      await page.keyboard.press('ArrowLeft');
      await page.getByRole('dialog', { name: `${style} avatars: 1 of ${AVATARS_PER_STYLE}` }).waitFor();
      expect(await large.getAttribute('alt')).toBe(firstAlt);

      // Tab stays inside the dialog, however often it is pressed.
      for (let i = 0; i < 8; i++) {
        await page.keyboard.press('Tab');
        expect(
          await page.evaluate(() =>
            Boolean((globalThis as unknown as PageDom).document.activeElement?.closest('dialog')),
          ),
        ).toBe(true);
      }
      // Escape closes it, and the focus is back on the thumbnail that opened it.
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      expect(
        await opener.evaluate(
          (el) => el === (el.ownerDocument as unknown as PageDom['document']).activeElement,
        ),
      ).toBe(true);
    },
    STEP_MS,
  );

  it(
    'a style\u2019s avatars download as one zip',
    async () => {
      const style = styleNames[0]!;
      const button = page.getByRole('button', {
        name: `Download all ${AVATARS_PER_STYLE} of ${style} (zip)`,
      });
      const [zip] = await Promise.all([page.waitForEvent('download'), button.click()]);
      expect(zip.suggestedFilename()).toMatch(/^[a-z0-9-]+\.zip$/);
      const bytes = await readFile((await zip.path())!);
      expect(bytes.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
      // The end record counts the entries: every avatar of the style.
      expect(bytes.readUInt16LE(bytes.length - 22 + 10)).toBe(AVATARS_PER_STYLE);
    },
    STEP_MS,
  );

  it(
    'a tab left open past the links\u2019 lifetime still shows every avatar when scrolled to',
    async () => {
      // The link the page first had for the last avatar stops working: the lifetime has passed.
      await eventually(async () => expect((await fetch(firstSrcOfLast)).status).toBe(404), 120_000);
      const images = thumbnails();
      const count = await images.count();
      for (let i = 0; i < count; i++) await images.nth(i).scrollIntoViewIfNeeded();
      await eventually(
        async () => expect((await widthsOf(images)).filter((w) => w === 0)).toEqual([]),
        60_000,
      );
      expect(await images.last().getAttribute('src')).not.toBe(firstSrcOfLast);
    },
    STEP_MS,
  );

  it(
    'on a phone, a swipe across the open avatar shows the next or the previous one',
    async () => {
      const phone = await browser.newContext({
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
      });
      try {
        const tab = await phone.newPage();
        await tab.goto(`${stack.apiUrl}/console/`);
        await tab.getByLabel('API token').fill(TOKEN);
        await tab.getByRole('button', { name: 'Sign in' }).tap();
        await tab.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
        await tab.goto(`${stack.apiUrl}/console/#/runs/${encodeURIComponent(workflowId)}`);
        const style = styleNames[0]!;
        await tab
          .getByRole('button', { name: new RegExp(`^${style} avatar \\d+$`) })
          .first()
          .tap();
        const shown = (n: number) =>
          tab.getByRole('dialog', { name: `${style} avatars: ${n} of ${AVATARS_PER_STYLE}` });
        await shown(1).waitFor();
        // Real touches, as a finger makes them: the browser turns them into pointer events.
        const touch = await phone.newCDPSession(tab);
        const box = (await tab.getByRole('dialog').getByRole('img').boundingBox())!;
        const swipe = async (dx: number, dy: number) => {
          const x = box.x + box.width / 2;
          const y = box.y + box.height / 2;
          await touch.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
          for (let step = 1; step <= 5; step++) {
            await touch.send('Input.dispatchTouchEvent', {
              type: 'touchMove',
              touchPoints: [{ x: x + (dx * step) / 5, y: y + (dy * step) / 5 }],
            });
          }
          await touch.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
        };
        await swipe(-150, 10);
        await shown(2).waitFor();
        await swipe(150, -10);
        await shown(1).waitFor();
        // Back from the first wraps round to the last. A move mostly down is no swipe: the next
        // swipe on from the last wraps to the first only if that move changed nothing.
        await swipe(150, 0);
        await shown(AVATARS_PER_STYLE).waitFor();
        await swipe(20, 160);
        await swipe(-150, 0);
        await shown(1).waitFor();
      } finally {
        await phone.close();
      }
    },
    STEP_MS,
  );

  it(
    'the run page names its subject, and the campaign page lists its subjects with links to their runs',
    async () => {
      expect(await page.locator('dl.facts').textContent()).toContain(SUBJECT);
      await page.goto(`${stack.apiUrl}/console/#/campaigns/${encodeURIComponent(campaignId)}`);
      const subjects = page.getByRole('region', { name: 'Subjects' });
      await eventually(async () => {
        for (const subject of CAMPAIGN_SUBJECTS) {
          const row = subjects.getByRole('row', { name: new RegExp(`^${subject} `) });
          expect(await row.getByRole('cell').first().textContent()).toBe('done');
        }
      }, STEP_MS - 20_000);
      await checkAccessibility('campaign subjects');
      const [subject] = CAMPAIGN_SUBJECTS;
      await subjects.getByRole('link', { name: subject, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: /^Run / }).waitFor();
      await eventually(async () => expect(await page.locator('dl.facts').textContent()).toContain(subject!));
      await thumbnails().first().waitFor({ timeout: 60_000 });
    },
    STEP_MS,
  );
});

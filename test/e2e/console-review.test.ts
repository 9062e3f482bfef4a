import { copyFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startApiStack, type ApiStack } from '../helpers/api-stack';
import { launchChromium, seriousAxeViolations } from '../helpers/browser';
import { writeSelfies } from '../helpers/selfie-files';
import { makeScratchDir, uniqueName, useOwnNamespace } from '../helpers/temporal-env';
import { killAllSpawned, requireCompiledCli, waitFor } from '../helpers/worker-process';

/*
 * The review gate's page in the console, reached as a reviewer without an API token reaches it:
 * through a review link (POST /v1/pipelines/{id}/review-links) opened in a fresh browser context
 * at phone size, against a real stack (dev server, simulator, `avatar-pipeline worker` and `api`).
 * The reviewer approves one style with the keyboard, taps "regenerate" on another, decides a third
 * avatar by avatar, and approves the regenerated style once its new order is in; the run's result
 * holds what was approved and nothing else, and the link stops deciding once the run is done.
 */
const ROOT = path.join(__dirname, '..', '..');
const TOKEN = 'console-review-token-0123456789';
const STEP_MS = 120_000;
const PHONE = { width: 390, height: 844 };

let browser: Browser;
let context: BrowserContext;
let page: Page;
let stack: ApiStack;
let restoreNamespace: () => void;
let images: string[];

beforeAll(async () => {
  requireCompiledCli();
  if (!existsSync(path.join(ROOT, 'dist', 'console', 'index.html'))) {
    throw new Error('dist/console is missing: run `npm run build` first (npm test does)');
  }
  browser = await launchChromium();
  restoreNamespace = await useOwnNamespace(uniqueName('console-review'));
  const dir = await makeScratchDir('console-review');
  stack = await startApiStack(dir, 'console-review', TOKEN, {}, { avatarsPerOrder: 2 });
  const written = await writeSelfies(2, 'console-review-selfies-');
  await mkdir(path.join(dir, 'selfies'), { recursive: true });
  images = [];
  for (const file of written.files) {
    const target = path.join(dir, 'selfies', path.basename(file));
    await copyFile(file, target);
    images.push(target);
  }
}, 660_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await killAllSpawned();
  await stack?.stop();
  restoreNamespace?.();
});

async function api<T>(
  method: string,
  url: string,
  body?: unknown,
  token = TOKEN,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${stack.apiUrl}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

interface Status {
  state: string;
  progress?: {
    review?: { state: string; styles: Array<{ styleId: number; state: string; orderId?: number }> };
  };
  result?: {
    generations: Array<{ styleId: number; orderId?: number; avatars: Array<{ avatarId: number }> }>;
    review?: {
      approved: number[];
      rejected: number[];
      regenerated: Array<{ styleId: number; orderIds: number[] }>;
    };
  };
}

/** The simulator's names of the run's styles: the review page names them although its link's token cannot read GET /v1/styles. */
const NAMES: Record<number, string> = { 3: 'Watercolor', 7: 'Film Noir', 12: 'Pixel Hero' };

const styleSection = (styleId: number) =>
  page.getByRole('region', { name: new RegExp(`^${NAMES[styleId]!} `) });

test(
  'a reviewer with a review link approves, regenerates and decides avatars on a phone; only approved work is delivered',
  async () => {
    const started = await api<{ workflowId: string }>('POST', '/v1/pipelines', {
      images,
      styles: [3, 7, 12],
      gender: 1,
      subjectId: 'person-review-page-0192',
      review: { required: true },
    });
    expect(started.status).toBe(202);
    const { workflowId } = started.body;
    const runPath = `/v1/pipelines/${encodeURIComponent(workflowId)}`;
    await waitFor(
      'the run to wait for review',
      async () => (await api<Status>('GET', runPath)).body.state === 'awaiting-review',
      STEP_MS,
    );
    const minted = await api<{ url: string; token: string; expiresAt: string; reviewer: string }>(
      'POST',
      `${runPath}/review-links`,
      { ttlSeconds: 3600 },
    );
    expect(minted.status).toBe(201);
    const link = minted.body;
    expect(link.url.startsWith(`${stack.apiUrl}/console/#/review/`)).toBe(true);
    // A link that expires within a second, and a read-only browser access token, for the end.
    const shortLived = await api<{ token: string; expiresAt: string }>('POST', `${runPath}/review-links`, {
      ttlSeconds: 1,
    });
    const readOnly = await api<{ token: string }>('POST', `${runPath}/access-tokens`, {});
    expect([shortLived.status, readOnly.status]).toEqual([201, 201]);

    // A fresh context: no session, no API token, only the link. A phone's screen and touch.
    context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    page = await context.newPage();
    await page.goto(link.url);
    await page.getByRole('heading', { level: 1, name: `Review run ${workflowId}` }).waitFor();
    expect(await page.getByRole('note').textContent()).toBe(
      'Signed in with a review link for one run: its review only.',
    );
    // The token left the address bar; the page holds no navigation to the rest of the console.
    expect(page.url()).not.toContain('access_token');
    expect(await page.getByRole('navigation', { name: 'Console' }).count()).toBe(0);
    await styleSection(12).getByRole('img').nth(1).waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      PHONE.width,
    );
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Neither the expired link nor the read-only token decides: each is answered as an unknown run.
    const wait = Date.parse(shortLived.body.expiresAt) - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 50));
    const approve7 = { decisions: [{ styleId: 7, decision: 'approve' }] };
    for (const token of [shortLived.body.token, readOnly.body.token]) {
      expect(await api('POST', `${runPath}/review`, approve7, token)).toEqual({
        status: 404,
        body: { error: `No pipeline ${workflowId}`, issues: [] },
      });
    }

    // Watercolor (3), with the keyboard: the button takes the focus and Enter presses it.
    const approve3 = page.getByRole('button', { name: 'Approve Watercolor', exact: true });
    await approve3.focus();
    await page.keyboard.press('Enter');
    await styleSection(3).getByText('approved', { exact: true }).waitFor();
    expect(await styleSection(3).getByText('Approved', { exact: true }).count()).toBe(2);

    // Film Noir (7), by touch: regenerate. Its old avatars leave the page until the new order is in.
    const before = (await api<Status>('GET', runPath)).body.progress!.review!.styles.find(
      (s) => s.styleId === 7,
    )!;
    await page.getByRole('button', { name: 'Regenerate Film Noir', exact: true }).tap();
    await page.getByRole('status').filter({ hasText: 'Regenerate Film Noir: done.' }).waitFor();

    // Pixel Hero (12), avatar by avatar: the first rejected, the second approved; the style is then decided.
    const avatars12 = styleSection(12).getByRole('img');
    const [first, second] = await Promise.all([0, 1].map((i) => avatars12.nth(i).getAttribute('alt')));
    await page.getByRole('button', { name: `Reject ${first!}` }).tap();
    await styleSection(12).getByText('Rejected', { exact: true }).waitFor();
    await page.getByRole('button', { name: `Approve ${second!}` }).tap();
    await styleSection(12).getByText('approved', { exact: true }).waitFor();

    // The regenerated style comes back with a new order, under review again.
    await styleSection(7).getByText('awaiting your decision').waitFor({ timeout: STEP_MS });
    await styleSection(7).getByRole('img').first().waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Approve Film Noir', exact: true }).tap();
    await page.getByText('The review is done: every style is decided.').waitFor({ timeout: STEP_MS });

    await waitFor(
      'the run to end',
      async () => !['running', 'awaiting-review'].includes((await api<Status>('GET', runPath)).body.state),
      STEP_MS,
    );
    const done = (await api<Status>('GET', runPath)).body;
    expect(done.state).toBe('completed');
    const review = done.result!.review!;
    expect(review.approved.sort((a, b) => a - b)).toEqual([3, 7, 12]);
    expect(review.regenerated).toEqual([{ styleId: 7, orderIds: [before.orderId] }]);
    const delivered = Object.fromEntries(done.result!.generations.map((g) => [g.styleId, g]));
    expect(delivered[7]!.orderId).not.toBe(before.orderId);
    expect(delivered[12]!.avatars.map((a) => `Pixel Hero avatar ${a.avatarId}`)).toEqual([second]);
    expect(delivered[3]!.avatars).toHaveLength(2);
    // Exactly one new order for the regenerated style: four generation orders in all.
    expect(stack.sim.stats().totals).toMatchObject({ modelsCreated: 1, generationOrdersCreated: 4 });

    // Every decision is audited as the link, never as a token, and the link's token is in no log line.
    const decidedLines = stack
      .output()
      .split('\n')
      .filter((line) => line.includes('"action":"pipeline.review"'));
    expect(decidedLines.length).toBeGreaterThanOrEqual(5);
    for (const line of decidedLines) expect(line).toContain(`"reviewer":"${link.reviewer}"`);
    expect(stack.output()).not.toContain(link.token);

    // The review is done: the link decides nothing more.
    const late = await api(
      'POST',
      `${runPath}/review`,
      { decisions: [{ styleId: 3, decision: 'approve' }] },
      link.token,
    );
    expect(late.status).toBe(409);
  },
  6 * STEP_MS,
);

test(
  "a campaign's page lists its subjects awaiting review, each linked to its review page, and approves them all at once",
  async () => {
    const started = await api<{ campaignId: string }>('POST', '/v1/campaigns', {
      subjects: ['person-0193', 'person-0194'].map((subjectId, i) => ({
        subjectId,
        gender: i + 1,
        styles: [3],
        selfies: images,
      })),
      campaignId: 'review-day',
      options: { review: { required: true } },
    });
    expect(started.status).toBe(202);
    const { campaignId } = started.body;
    const desk = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    try {
      const tab = await desk.newPage();
      await tab.goto(`${stack.apiUrl}/console/`);
      await tab.getByLabel('API token').fill(TOKEN);
      await tab.getByLabel('API token').press('Enter');
      await tab.getByRole('navigation', { name: 'Console' }).waitFor();
      await tab.goto(`${stack.apiUrl}/console/#/campaigns/${encodeURIComponent(campaignId)}`);
      const section = tab.getByRole('region', { name: 'Awaiting review (2)' });
      await section.waitFor({ timeout: STEP_MS });
      await section.getByRole('link', { name: 'Review person-0193' }).waitFor({ timeout: STEP_MS });
      await section.getByRole('link', { name: 'Review person-0194' }).waitFor({ timeout: STEP_MS });
      expect(await seriousAxeViolations(tab)).toEqual([]);
      // Each link opens that run's review page.
      await section.getByRole('link', { name: 'Review person-0193' }).click();
      await tab.getByRole('heading', { level: 1, name: /^Review run / }).waitFor();
      await tab.getByRole('group', { name: /^Decide on / }).waitFor();
      // Signed in, the styles go by their names: one style, its three decisions.
      expect(
        await tab
          .getByRole('group', { name: /^Decide on / })
          .getByRole('button')
          .count(),
      ).toBe(3);
      await tab.goBack();
      await tab.getByRole('button', { name: 'Approve all 2 listed' }).click();
      await tab.getByRole('status').filter({ hasText: '2 run(s) approved.' }).waitFor();
      await waitFor(
        'the campaign to end',
        async () =>
          (await api<{ status: string }>('GET', `/v1/campaigns/${campaignId}`)).body.status === 'COMPLETED',
        STEP_MS,
      );
      const summary = await api<{ succeeded: number; total: number }>(
        'GET',
        `/v1/campaigns/${campaignId}/summary`,
      );
      expect(summary.body).toMatchObject({ total: 2, succeeded: 2 });
      // The batch is audited as one campaign.review line naming both runs.
      const batch = stack
        .output()
        .split('\n')
        .find((line) => line.includes('"action":"campaign.review"'));
      expect(batch).toBeDefined();
      expect(
        (JSON.parse(batch!.slice(batch!.indexOf('{'))) as { reviewedRuns: string[] }).reviewedRuns,
      ).toHaveLength(2);
    } finally {
      await desk.close();
    }
  },
  4 * STEP_MS,
);

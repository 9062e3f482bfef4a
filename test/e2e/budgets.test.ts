import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tenantsFileSchema } from '../../src/config/tenants';
import { FAST_POLLING } from '../helpers/e2e-pipeline';
import { startInProcessStack, type InProcessStack } from '../helpers/in-process-stack';
import { devServerUnderTest, uniqueName } from '../helpers/temporal-env';
import { runCli } from '../helpers/run-cli';
import { apiCaller, type ApiAnswer } from '../helpers/test-api';
import { startTestHttpServer, type TestHttpServer } from '../fixtures/http-test-server';
import { launchChromium, seriousAxeViolations } from '../helpers/browser';

/** Credits per training and per generated style, as an operator would price them. */
const COSTS = { training: 10, generation: 2 };
/** acme may spend 25 credits a month (hard); beta's work is metered but has no budget. */
const TENANTS_FILE = {
  costs: COSTS,
  tenants: { acme: { budget: { credits: 25 } }, beta: {}, gamma: { budget: { credits: 24 } } },
};
const TOKENS = {
  acme: 'acme-budget-token-0123456789abcdef',
  beta: 'beta-budget-token-0123456789abcdef',
  gamma: 'gamma-budget-token-0123456789abcdef',
};
type Tenant = keyof typeof TOKENS;

interface Usage {
  tenant: string;
  period: string;
  budget?: { credits: number };
  spent: number;
  reserved: number;
  left?: number;
  byKind: Record<string, { orders: number; credits: number }>;
  byCampaign: Record<string, { orders: number; credits: number }>;
}

/**
 * Budgets end to end: the dev server, a wall-clock simulator (trainings of 3 s, generations of
 * 1 s: long enough that a run is still going when the next start is asked), the workers and the
 * API in one process, all reading one tenants file.
 */
describe('budgets and usage (dev server, workers, simulator, API)', () => {
  let stack: InProcessStack;
  /** gamma's webhook endpoint. */
  let receiver: TestHttpServer;
  const as = (tenant: Tenant) => apiCaller(() => stack.base, TOKENS[tenant]);
  const acme = (method: string, url: string, body?: unknown) => as('acme')(method, url, body);
  const beta = (method: string, url: string, body?: unknown) => as('beta')(method, url, body);
  const request = (styles: number[]) => ({
    images: [stack.selfies.files[0]!],
    styles,
    gender: 1,
    subjectId: 'person-7f3a',
    polling: FAST_POLLING,
  });

  async function untilEnded(
    tenant: Tenant,
    workflowId: string,
  ): Promise<{ state: string; modelId?: number }> {
    for (let i = 0; i < 600; i++) {
      const answer = await as(tenant)('GET', `/v1/pipelines/${encodeURIComponent(workflowId)}`);
      const body = answer.body as { state: string; result?: { modelId: number } };
      if (answer.status === 200 && body.state !== 'running') {
        return { state: body.state, ...(body.result ? { modelId: body.result.modelId } : {}) };
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`${workflowId} did not end`);
  }

  async function usageOf(tenant: Tenant, query = ''): Promise<Usage> {
    const answer = await as(tenant)('GET', `/v1/usage${query}`);
    expect(answer.status).toBe(200);
    return answer.body as Usage;
  }

  /** The usage once the meter has counted `spent` credits (its signals are asynchronous to the runs' ends). */
  async function usageWhenSpent(tenant: Tenant, spent: number): Promise<Usage> {
    let usage = await usageOf(tenant);
    for (let i = 0; i < 100 && usage.spent < spent; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      usage = await usageOf(tenant);
    }
    return usage;
  }

  const startAs = (tenant: Tenant, url: string, body: unknown, key: string): Promise<Response> =>
    fetch(`${stack.base}${url}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKENS[tenant]}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    receiver = await startTestHttpServer((_req, res) => res.writeHead(200).end('ok'));
    stack = await startInProcessStack({
      name: 'budgets',
      tokens: Object.entries(TOKENS).map(([tenant, token]) => `${tenant}:${token}`),
      selfies: 1,
      simulator: { trainingMs: 3_000, generationMs: 1_000, avatarsPerOrder: 1 },
      archive: false,
      callbacks: { privateHosts: ['127.0.0.1'], webhookKey: 'budget-webhook-key-for-tests-0123456789' },
      // As the API and the workers read API_TENANTS_FILE.
      tenantsFile: tenantsFileSchema.parse(TENANTS_FILE),
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  test('acme starts runs until the next would pass its budget: 402, nothing started, nothing ordered', async () => {
    // 10 for the training, 2 for each style: 14 held for the run until it has spent them.
    const first = await startAs('acme', '/v1/pipelines', request([3, 5]), uniqueName('first'));
    expect(first.status).toBe(202);
    const firstId = ((await first.json()) as { workflowId: string }).workflowId;
    const held = await usageOf('acme');
    expect({ taken: held.spent + held.reserved, left: held.left }).toEqual({ taken: 14, left: 11 });

    // Another 14 would make 28 of 25.
    const refusedKey = uniqueName('refused');
    const refused = await startAs('acme', '/v1/pipelines', request([3, 5]), refusedKey);
    expect(refused.status).toBe(402);
    const refusal = (await refused.json()) as { error: string };
    expect(refusal.error).toMatch(/tenant "acme" has a budget of 25 credits a month \(\d{4}-\d{2}\)/);
    expect(refusal.error).toContain('this needs 14');
    await expect(
      stack.env.client.workflow.getHandle(`acme.avatar-pipeline-${refusedKey}`).describe(),
    ).rejects.toThrow(/not found/i);

    // A training alone (10) still fits: 24 of 25.
    const training = await startAs(
      'acme',
      '/v1/models',
      { images: request([3]).images, styles: [3], gender: 1, polling: FAST_POLLING },
      uniqueName('training'),
    );
    expect(training.status).toBe(202);
    const trainingId = ((await training.json()) as { workflowId: string }).workflowId;

    const ended = await untilEnded('acme', firstId);
    expect(ended.state).toBe('completed');
    expect((await untilEnded('acme', trainingId)).state).toBe('completed');

    // One style more under the trained model (2) would make 26.
    const generation = await startAs(
      'acme',
      `/v1/models/${ended.modelId}/generations`,
      { styles: [7], polling: FAST_POLLING },
      uniqueName('generation'),
    );
    expect(generation.status).toBe(402);

    const usage = await usageWhenSpent('acme', 24);
    expect(usage).toMatchObject({
      tenant: 'acme',
      spent: 24,
      reserved: 0,
      left: 1,
      budget: { credits: 25, period: 'monthly', mode: 'hard' },
      byKind: {
        training: { orders: 2, credits: 20 },
        generation: { orders: 2, credits: 4 },
        regeneration: { orders: 0, credits: 0 },
      },
    });
    expect(usage.period).toMatch(/^\d{4}-\d{2}$/);
    // What the provider was asked for: the two trainings and two styles that were let through.
    const { totals } = stack.sim.stats();
    expect({ models: totals.modelsCreated, generations: totals.generationOrdersCreated }).toEqual({
      models: 2,
      generations: 2,
    });

    // The CLI reads the same meter and the same file.
    const tenantsFile = path.join(stack.scratch, 'tenants.json');
    await writeFile(tenantsFile, JSON.stringify(TENANTS_FILE));
    const { address, namespace } = devServerUnderTest();
    const cli = await runCli(['usage', '--tenant', 'acme', '--json'], {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: stack.config.placement.taskQueue,
      API_TENANTS_FILE: tenantsFile,
    });
    expect({ code: cli.code, stderr: cli.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(cli.stdout)).toEqual(usage);
    const text = await runCli(['usage', '--tenant', 'acme'], {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      API_TENANTS_FILE: tenantsFile,
    });
    expect(text.stdout).toContain(
      `tenant acme in ${usage.period}: 24 of 25 credits spent, 0 reserved, 1 left`,
    );
  }, 180_000);

  test('beta’s meter is its own, and its campaign is unknown to acme', async () => {
    const acmeBefore = await usageOf('acme');
    expect(await usageOf('beta')).toMatchObject({ tenant: 'beta', spent: 0, reserved: 0 });

    const started = await beta('POST', '/v1/campaigns', {
      campaignId: uniqueName('spring'),
      subjects: [{ subjectId: 'person-b1', gender: 1, styles: [3], selfies: [stack.selfies.files[0]!] }],
      options: { polling: FAST_POLLING },
    });
    expect(started.status).toBe(202);
    const campaignId = (started.body as { campaignId: string }).campaignId;
    for (let i = 0; i < 600; i++) {
      const answer = await beta('GET', `/v1/campaigns/${encodeURIComponent(campaignId)}`);
      if ((answer.body as { status?: string }).status === 'COMPLETED') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    const usage = await usageWhenSpent('beta', 12);
    expect(usage).toMatchObject({
      tenant: 'beta',
      spent: 12,
      byCampaign: { [campaignId]: { orders: 2, credits: 12 } },
    });
    expect(usage.budget).toBeUndefined();
    expect(usage.left).toBeUndefined();
    const own = await usageOf('beta', `?campaignId=${encodeURIComponent(campaignId)}`);
    expect(own.byCampaign).toEqual({ [campaignId]: { orders: 2, credits: 12 } });

    // acme's meter has not moved, and beta's campaign is answered as an id nobody used.
    expect(await usageOf('acme')).toEqual(acmeBefore);
    const strip = (answer: ApiAnswer, id: string) => ({
      status: answer.status,
      text: answer.text.split(id).join('<id>'),
    });
    const unknownId = `beta.${uniqueName('nobody')}`;
    const unknown = strip(
      await acme('GET', `/v1/usage?campaignId=${encodeURIComponent(unknownId)}`),
      unknownId,
    );
    expect(unknown.status).toBe(404);
    expect(
      strip(await acme('GET', `/v1/usage?campaignId=${encodeURIComponent(campaignId)}`), campaignId),
    ).toEqual(unknown);
  }, 180_000);

  test('gamma’s campaign pauses at the budget with the reason, and ends all DONE once the budget is raised and it is resumed', async () => {
    const gamma = as('gamma');
    const registered = await gamma('POST', '/v1/webhooks', {
      url: `${receiver.origin}/hooks`,
      events: ['budget.*'],
    });
    expect(registered.status).toBe(201);
    const subject = (n: number) => ({
      subjectId: `person-g${n}`,
      gender: 1,
      styles: [3],
      selfies: [stack.selfies.files[0]!],
    });
    // 12 credits a subject: two fit in 24, the third does not.
    const started = await gamma('POST', '/v1/campaigns', {
      campaignId: uniqueName('autumn'),
      subjects: [subject(1), subject(2), subject(3)],
      options: { polling: FAST_POLLING, maxInFlight: 3 },
    });
    expect(started.status).toBe(202);
    const campaignId = (started.body as { campaignId: string }).campaignId;
    const url = `/v1/campaigns/${encodeURIComponent(campaignId)}`;
    type Status = {
      status: string;
      progress?: { state: string; pausedFor?: string; counts: { done: number; pending: number } };
    };
    async function until(what: string, test: (status: Status) => boolean): Promise<Status> {
      for (let i = 0; i < 600; i++) {
        const status = (await gamma('GET', url)).body as Status;
        if (test(status)) return status;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      throw new Error(`campaign ${campaignId}: ${what} never came`);
    }

    const paused = await until('the pause', (s) => s.progress?.state === 'paused');
    expect(paused.progress!.pausedFor).toMatch(/tenant "gamma" has a budget of 24 credits a month/);
    expect(paused.progress!.pausedFor).toContain('this needs 12');
    // The two that fit run to the end; the third waits, not failed.
    const held = await until('two subjects done', (s) => s.progress?.counts.done === 2);
    expect(held.progress).toMatchObject({ state: 'paused', counts: { done: 2, pending: 1 } });

    // The operator raises the budget (the tenants file the API and workers read), then resumes.
    Object.assign(stack.config.tenants!['gamma']!.budget!, { credits: 100 });
    expect((await gamma('POST', `${url}/resume`)).status).toBe(200);
    await until('the end', (s) => s.status === 'COMPLETED');
    const summary = (await gamma('GET', `${url}/summary`)).body as {
      subjects: { subjectId: string; status: string }[];
    };
    expect(summary.subjects.map((s) => s.status)).toEqual(['DONE', 'DONE', 'DONE']);
    const usage = await usageWhenSpent('gamma', 36);
    expect(usage).toMatchObject({
      spent: 36,
      left: 64,
      byCampaign: { [campaignId]: { orders: 6, credits: 36 } },
    });

    // Its endpoint heard the budget run out (the second subject's reservation left 0) and each
    // alert percentage as spending reached it, each once in the period, raised budget or not.
    const heard = () =>
      receiver.requests.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });
    for (let i = 0; i < 100 && heard().length < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const events = heard();
    expect(events.filter((e) => e.type === 'budget.exhausted').map((e) => e.data)).toEqual([
      expect.objectContaining({ tenant: 'gamma', period: usage.period, credits: 24 }),
    ]);
    expect(events.filter((e) => e.type === 'budget.threshold').map((e) => e.data.percent)).toEqual([
      50, 80, 100,
    ]);
    expect(events).toHaveLength(4);

    // The console's usage page says the same, and draws it: spent is 36 of the 100 credits.
    const browser = await launchChromium();
    try {
      for (const viewport of [
        { width: 390, height: 844 },
        { width: 1440, height: 900 },
      ]) {
        const page = await browser.newPage({ viewport });
        await page.goto(`${stack.base}/console/`);
        await page.getByLabel('API token').fill(TOKENS.gamma);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
        await page.goto(`${stack.base}/console/#/usage`);
        await page.getByText('36 of 100 credits spent', { exact: false }).waitFor();
        const bar = page.getByRole('img', { name: 'Budget: 36 spent, 0 reserved, 64 left of 100' });
        expect(await bar.locator('rect.spent').getAttribute('width')).toBe('36');
        expect(await page.getByRole('link', { name: campaignId }).getAttribute('href')).toBe(
          `#/campaigns/${encodeURIComponent(campaignId)}`,
        );
        expect(
          await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth'),
        ).toBe(true);
        expect({ viewport, violations: await seriousAxeViolations(page) }).toEqual({
          viewport,
          violations: [],
        });
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }, 240_000);
});

import { TenantAttribute } from '@avatar-pipeline/client/contracts/search-attributes';
import { FAST_POLLING } from '../helpers/e2e-pipeline';
import { startInProcessStack, type InProcessStack } from '../helpers/in-process-stack';
import { uniqueName } from '../helpers/temporal-env';
import { apiCaller, type ApiAnswer } from '../helpers/test-api';

type Tenant = 'tenant-a' | 'tenant-b';
/** Each tenant's API token, given to the API as `tenant:token` entries of API_TOKENS. */
const TOKENS: Record<Tenant, string> = {
  'tenant-a': 'tenant-a-isolation-token-0123456789',
  'tenant-b': 'tenant-b-isolation-token-0123456789',
};

interface Status {
  state: string;
  result?: {
    modelId: number;
    generations: Array<{ avatars: Array<{ avatarId: number; archivedUrl?: string }> }>;
  };
}

/**
 * Two tenants on one worker, one provider (the simulator) and one API: A can neither see, stream,
 * cancel, retry, generate from nor erase anything of B's. Every /v1 route answers A about B's ids
 * exactly as it answers about ids nobody used (status and body, with the id itself replaced).
 */
describe('tenant isolation (dev server, one worker, one simulator, API)', () => {
  let stack: InProcessStack;
  /** A request as `tenant`: with that tenant's own API token. */
  async function asTenant(tenant: Tenant, method: string, url: string, body?: unknown): Promise<ApiAnswer> {
    return apiCaller(() => stack.base, TOKENS[tenant])(method, url, body);
  }
  const asA = (method: string, url: string, body?: unknown) => asTenant('tenant-a', method, url, body);
  const asB = (method: string, url: string, body?: unknown) => asTenant('tenant-b', method, url, body);

  /** Status and body of A's answer about `id`, the id itself (and its URL form) replaced, so two ids' answers compare. */
  async function answerToA(
    method: string,
    url: (id: string) => string,
    id: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> {
    const answer = await asA(method, url(encodeURIComponent(id)), body);
    const text = answer.text.split(JSON.stringify(id).slice(1, -1)).join('<id>');
    return { status: answer.status, body: text === '' ? '' : (JSON.parse(text) as unknown) };
  }

  async function untilEnded(tenant: Tenant, workflowId: string): Promise<Status> {
    for (let i = 0; i < 300; i++) {
      const answer = await asTenant(tenant, 'GET', `/v1/pipelines/${encodeURIComponent(workflowId)}`);
      const status = answer.body as Status;
      if (answer.status === 200 && status.state !== 'running') return status;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${workflowId} did not end`);
  }

  async function campaignEnded(tenant: Tenant, campaignId: string): Promise<void> {
    for (let i = 0; i < 300; i++) {
      const answer = await asTenant(tenant, 'GET', `/v1/campaigns/${encodeURIComponent(campaignId)}`);
      if ((answer.body as { status?: string }).status === 'COMPLETED') return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`campaign ${campaignId} did not end`);
  }

  /** What both tenants did, each under the same subject id, Idempotency-Key and campaign id. */
  const a = { pipeline: '', modelId: 0, campaign: '', archived: [] as string[] };
  const b = { pipeline: '', modelId: 0, campaign: '' };
  const sameKey = uniqueName('same-key');
  const sameCampaign = uniqueName('same-campaign');
  const request = () => ({
    images: [stack.selfies.files[0]!],
    styles: [3],
    gender: 1,
    subjectId: 'u-1',
    polling: FAST_POLLING,
  });

  /** POST /v1/pipelines as `tenant` with an Idempotency-Key. */
  async function startAs(tenant: Tenant, key: string): Promise<{ status: number; workflowId: string }> {
    const response = await fetch(`${stack.base}/v1/pipelines`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKENS[tenant]}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: JSON.stringify(request()),
    });
    return {
      status: response.status,
      workflowId: ((await response.json()) as { workflowId: string }).workflowId,
    };
  }

  beforeAll(async () => {
    stack = await startInProcessStack({
      name: 'tenant-isolation',
      tokens: Object.entries(TOKENS).map(([tenant, token]) => `${tenant}:${token}`),
      selfies: 1,
      simulator: { trainingMs: 200, generationMs: 150, avatarsPerOrder: 1 },
    });

    // Both tenants start a pipeline for their `u-1` under one Idempotency-Key, and a campaign of one id.
    for (const [tenant, ran] of [
      ['tenant-b', b],
      ['tenant-a', a],
    ] as const) {
      const started = await startAs(tenant, sameKey);
      expect({ tenant, status: started.status }).toEqual({ tenant, status: 202 });
      ran.pipeline = started.workflowId;
      const campaign = await asTenant(tenant, 'POST', '/v1/campaigns', {
        campaignId: sameCampaign,
        subjects: [{ subjectId: 'u-1', gender: 1, styles: [3], selfies: [stack.selfies.files[0]!] }],
        options: { polling: FAST_POLLING },
      });
      expect({ tenant, status: campaign.status }).toEqual({ tenant, status: 202 });
      ran.campaign = (campaign.body as { campaignId: string }).campaignId;
    }
    for (const [tenant, ran] of [
      ['tenant-b', b],
      ['tenant-a', a],
    ] as const) {
      const ended = await untilEnded(tenant, ran.pipeline);
      expect({ tenant, state: ended.state }).toEqual({ tenant, state: 'completed' });
      ran.modelId = ended.result!.modelId;
      await campaignEnded(tenant, ran.campaign);
    }
    const mine = await untilEnded('tenant-a', a.pipeline);
    a.archived = mine.result!.generations.flatMap((g) => g.avatars.map((avatar) => avatar.archivedUrl!));
    expect(a.archived.length).toBeGreaterThan(0);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  test('one Idempotency-Key and one campaign id make one run per tenant, each with its tenant', async () => {
    expect(a.pipeline).toBe(`tenant-a.avatar-pipeline-${sameKey}`);
    expect(b.pipeline).toBe(`tenant-b.avatar-pipeline-${sameKey}`);
    expect([a.campaign, b.campaign]).toEqual([`tenant-a.${sameCampaign}`, `tenant-b.${sameCampaign}`]);
    expect(a.modelId).not.toBe(b.modelId);
    // The key again finds each tenant's own run.
    expect(await startAs('tenant-a', sameKey)).toEqual({ status: 200, workflowId: a.pipeline });
    expect(await startAs('tenant-b', sameKey)).toEqual({ status: 200, workflowId: b.pipeline });
    for (const [tenant, id] of [
      ['tenant-a', a.pipeline],
      ['tenant-b', b.pipeline],
      ['tenant-a', a.campaign],
      ['tenant-a', `${a.campaign}/u-1`],
    ] as const) {
      const description = await stack.env.client.workflow.getHandle(id).describe();
      expect({ id, tenant: description.typedSearchAttributes.get(TenantAttribute) }).toEqual({ id, tenant });
    }
  });

  const unknownRun = () => `tenant-b.avatar-pipeline-${uniqueName('nobody')}`;
  const unknownCampaign = () => `tenant-b.${uniqueName('no-campaign')}`;
  const unknownModel = '987654321';
  // Every row has its body (undefined for none): jest would take a fourth parameter the row lacks for `done`.
  const pipelineRoutes: Array<[string, string, (id: string) => string, unknown]> = [
    ['status', 'GET', (id) => `/v1/pipelines/${id}`, undefined],
    ['events', 'GET', (id) => `/v1/pipelines/${id}/events`, undefined],
    ['cancel', 'POST', (id) => `/v1/pipelines/${id}/cancel`, undefined],
    ['retry', 'POST', (id) => `/v1/pipelines/${id}/retry`, undefined],
  ];
  test.each(pipelineRoutes)(
    'pipeline %s: B\u2019s run is answered as an unknown id',
    async (_name, method, url, body) => {
      const unknown = await answerToA(method, url, unknownRun(), body);
      expect(unknown.status).toBe(404);
      expect(await answerToA(method, url, b.pipeline, body)).toEqual(unknown);
      expect(await answerToA(method, url, `${b.campaign}/u-1`, body)).toEqual(unknown);
    },
  );

  const campaignRoutes: Array<[string, string, (id: string) => string, unknown]> = [
    ['status', 'GET', (id) => `/v1/campaigns/${id}`, undefined],
    ['summary', 'GET', (id) => `/v1/campaigns/${id}/summary`, undefined],
    ['events', 'GET', (id) => `/v1/campaigns/${id}/events`, undefined],
    ['results.csv', 'GET', (id) => `/v1/campaigns/${id}/results.csv`, undefined],
    ['results.jsonl', 'GET', (id) => `/v1/campaigns/${id}/results.jsonl`, undefined],
    ['pause', 'POST', (id) => `/v1/campaigns/${id}/pause`, undefined],
    ['resume', 'POST', (id) => `/v1/campaigns/${id}/resume`, undefined],
    ['cancel', 'POST', (id) => `/v1/campaigns/${id}/cancel`, undefined],
    ['retry', 'POST', (id) => `/v1/campaigns/${id}/retry`, { subjectIds: ['u-1'] }],
  ];
  test.each(campaignRoutes)(
    'campaign %s: B\u2019s campaign is answered as an unknown id',
    async (_name, method, url, body) => {
      const unknown = await answerToA(method, url, unknownCampaign(), body);
      expect(unknown.status).toBe(404);
      expect(await answerToA(method, url, b.campaign, body)).toEqual(unknown);
    },
  );

  test('list: A sees its own runs only, and B\u2019s campaign lists like a campaign nobody made', async () => {
    const listed = await asA('GET', '/v1/pipelines?subjectId=u-1&limit=100');
    expect(listed.status).toBe(200);
    const ids = (listed.body as { pipelines: Array<{ workflowId: string }> }).pipelines.map(
      (p) => p.workflowId,
    );
    expect(ids.sort()).toEqual([a.pipeline, `${a.campaign}/u-1`].sort());
    const all = await asA('GET', '/v1/pipelines?limit=100');
    expect(
      (all.body as { pipelines: Array<{ workflowId: string }> }).pipelines.every((p) =>
        p.workflowId.startsWith('tenant-a.'),
      ),
    ).toBe(true);
    const list = (id: string) => `/v1/pipelines?campaignId=${id}`;
    const unknown = await answerToA('GET', list, unknownCampaign());
    expect(unknown).toEqual({ status: 200, body: { pipelines: [] } });
    expect(await answerToA('GET', list, b.campaign)).toEqual(unknown);
  });

  test('campaign list: each tenant lists its own campaign only, newest first, with its total', async () => {
    for (const [tenant, ran] of [
      ['tenant-a', a],
      ['tenant-b', b],
    ] as const) {
      const listed = await asTenant(tenant, 'GET', '/v1/campaigns?limit=100');
      expect(listed.status).toBe(200);
      const { campaigns } = listed.body as {
        campaigns: Array<{ campaignId: string; state: string; total?: number; startedAt: string }>;
      };
      expect({ tenant, campaigns: campaigns.map((c) => c.campaignId) }).toEqual({
        tenant,
        campaigns: [ran.campaign],
      });
      expect(campaigns[0]).toMatchObject({ state: 'completed', total: 1 });
      expect(Date.parse(campaigns[0]!.startedAt)).not.toBeNaN();
    }
    // A cursor this listing never handed out names no page.
    expect((await asA('GET', '/v1/campaigns?cursor=AAAAAAAAAAAA.AAAA')).status).toBe(404);
  });

  test('models and orders: A sees the models its runs trained, and B\u2019s model is an unknown id', async () => {
    const models = (await asA('GET', '/v1/models')).body as { models: Array<{ modelId: number }> };
    const modelIds = models.models.map((m) => m.modelId);
    expect(modelIds).toContain(a.modelId);
    expect(modelIds).not.toContain(b.modelId);
    const orders = (await asA('GET', '/v1/orders')).body as {
      orders: Array<{ orderId: number; modelId: number }>;
    };
    expect(orders.orders.length).toBeGreaterThan(0);
    for (const order of orders.orders) {
      expect({ order, ofB: order.orderId === b.modelId || order.modelId === b.modelId }).toEqual({
        order,
        ofB: false,
      });
    }
    const byModel: Array<[string, (id: string) => string, unknown?]> = [
      ['GET', (id) => `/v1/models/${id}`],
      ['GET', (id) => `/v1/orders?modelId=${id}`],
      ['POST', (id) => `/v1/models/${id}/generations`, { styles: [3], gender: 1 }],
      ['POST', (id) => `/v1/models/${id}/generations`, { styles: [3] }],
    ];
    for (const [method, url, body] of byModel) {
      const unknown = await answerToA(method, url, unknownModel, body);
      expect(unknown.status).toBeGreaterThanOrEqual(400);
      expect({ url: url('{id}'), ...(await answerToA(method, url, String(b.modelId), body)) }).toEqual({
        url: url('{id}'),
        ...unknown,
      });
    }
    // A generates from its own model as before.
    const own = await asA('POST', `/v1/models/${a.modelId}/generations`, { styles: [3] });
    expect(own.status).toBe(202);
  });

  test('B erasing u-1 leaves A\u2019s u-1 whole, and A\u2019s archived avatars are still served', async () => {
    const erased = await asB('DELETE', '/v1/subjects/u-1');
    expect(erased.status).toBe(200);
    const report = erased.body as { runs: Array<{ workflowId: string }> };
    expect(report.runs.map((r) => r.workflowId).sort()).toEqual([b.pipeline, `${b.campaign}/u-1`].sort());
    // Temporal deletes in the background: B's run goes, A's stays.
    for (let i = 0; i < 300; i++) {
      if ((await asB('GET', `/v1/pipelines/${b.pipeline}`)).status === 404) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await asB('GET', `/v1/pipelines/${b.pipeline}`)).status).toBe(404);
    const mine = await asA('GET', `/v1/pipelines/${a.pipeline}`);
    expect(mine.status).toBe(200);
    for (const url of a.archived) {
      const image = await fetch(url.startsWith('http') ? url : `${stack.base}${url}`);
      expect({ url, status: image.status }).toEqual({ url, status: 200 });
    }
    const summary = (await asA('GET', `/v1/campaigns/${a.campaign}/summary`)).body as {
      subjects: Array<{ subjectId: string; status: string }>;
    };
    expect(summary.subjects.map((s) => [s.subjectId, s.status])).toEqual([['u-1', 'DONE']]);
    const listed = (await asA('GET', '/v1/pipelines?subjectId=u-1&limit=100')).body as {
      pipelines: Array<{ workflowId: string }>;
    };
    expect(listed.pipelines.map((p) => p.workflowId)).toEqual(
      expect.arrayContaining([a.pipeline, `${a.campaign}/u-1`]),
    );
  });
});

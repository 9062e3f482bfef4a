import { setTimeout as delay } from 'node:timers/promises';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { testConfig } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, makeScratchDir, uniqueName } from '../helpers/temporal-env';
import { startTestApi, withApi } from '../helpers/test-api';

const TOKEN = 'listing-token-0123456789';

/**
 * GET /v1/pipelines on a real dev server. No worker polls the task queue, so every run stays open
 * and the listing order is the start order, newest first.
 */
describe('GET /v1/pipelines: filters and cursor paging', () => {
  let env: TestWorkflowEnvironment;
  let app: FastifyInstance;
  let base: string;
  let taskQueue: string;
  const subjectId = uniqueName('subject');
  const campaignId = uniqueName('campaign');
  const started: string[] = [];
  const others: string[] = [];

  beforeAll(async () => {
    env = await createDevServerEnv();
    taskQueue = uniqueName('listing');
    const selfies = await writeSelfies(1, 'listing-selfies-');
    const request = { images: selfies.files, styles: [3], gender: 1 as const };
    for (let i = 0; i < 3; i++) {
      const run = await startPipeline(env.client, { ...request, subjectId }, placementFrom({ taskQueue }));
      started.push(run.workflowId);
      await delay(20); // distinct start times
    }
    const other = await startPipeline(
      env.client,
      { ...request, subjectId: `${subjectId}-other`, campaignId },
      placementFrom({ taskQueue }),
    );
    others.push(other.workflowId);
    const config = testConfig({
      namespace: env.namespace,
      taskQueue,
      providerUrl: 'http://127.0.0.1:9',
      imageRoots: [await makeScratchDir('listing-blobs'), selfies.dir],
    });
    ({ app, base } = await startTestApi({
      config: withApi(config, { tokens: [TOKEN] }),
      client: env.client,
    }));
  });

  afterAll(async () => {
    await app?.close();
    for (const id of [...started, ...others])
      await env.client.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined);
    await env?.teardown();
  });

  async function get(url: string, token: string | null = TOKEN) {
    const response = await fetch(`${base}${url}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: response.status, body: (await response.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  }

  /** Visibility trails the starts by a moment. */
  async function untilListed(url: string, count: number) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const answer = await get(url);
      if (answer.body.pipelines?.length === count || Date.now() > deadline) return answer;
      await delay(250);
    }
  }

  it('lists one subject’s runs newest first, two per page, with a cursor to the rest', async () => {
    const all = await untilListed(`/v1/pipelines?subjectId=${subjectId}&limit=10`, 3);
    expect(all.status).toBe(200);
    expect(all.body.pipelines.map((p: { workflowId: string }) => p.workflowId)).toEqual(
      [...started].reverse(),
    );
    expect(all.body.pipelines[0]).toMatchObject({
      kind: 'pipeline',
      state: 'running',
      stage: 'creating-model',
      subjectId,
      links: { self: `/v1/pipelines/${started[2]}` },
    });

    const first = await get(`/v1/pipelines?subjectId=${subjectId}&limit=2`);
    expect(first.body.pipelines.map((p: { workflowId: string }) => p.workflowId)).toEqual([
      started[2],
      started[1],
    ]);
    expect(typeof first.body.nextCursor).toBe('string');
    const second = await get(
      `/v1/pipelines?subjectId=${subjectId}&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect(second.status).toBe(200);
    expect(second.body.pipelines.map((p: { workflowId: string }) => p.workflowId)).toEqual([started[0]]);
    if (second.body.nextCursor !== undefined) {
      const third = await get(
        `/v1/pipelines?subjectId=${subjectId}&limit=2&cursor=${encodeURIComponent(second.body.nextCursor)}`,
      );
      expect(third.body.pipelines).toEqual([]);
      expect(third.body.nextCursor).toBeUndefined();
    }
  });

  it('filters by campaign, state and kind', async () => {
    const byCampaign = await untilListed(`/v1/pipelines?campaignId=${campaignId}`, 1);
    expect(byCampaign.body.pipelines).toEqual([
      expect.objectContaining({ campaignId, subjectId: `${subjectId}-other` }),
    ]);
    const none = await get(`/v1/pipelines?subjectId=${subjectId}&status=completed`);
    expect(none.body.pipelines).toEqual([]);
    const running = await get(`/v1/pipelines?subjectId=${subjectId}&status=running&kind=pipeline`);
    expect(running.body.pipelines).toHaveLength(3);
  });

  it('refuses bad filters and cursors naming the field, and answers 401 without a token', async () => {
    const cases: [string, string][] = [
      [`/v1/pipelines?status=sleeping`, 'querystring.status'],
      [`/v1/pipelines?kind=everything`, 'querystring.kind'],
      [`/v1/pipelines?limit=0`, 'querystring.limit'],
      [`/v1/pipelines?subjectId=o'brien`, 'querystring.subjectId'],
      [`/v1/pipelines?cursor=garbage`, 'querystring.cursor'],
    ];
    for (const [url, path] of cases) {
      const answer = await get(url);
      expect([url, answer.status]).toEqual([url, 422]);
      expect(answer.body.issues[0].path).toBe(path);
    }
    const first = await get(`/v1/pipelines?subjectId=${subjectId}&limit=1`);
    const otherFilters = await get(
      `/v1/pipelines?campaignId=${campaignId}&limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    // A cursor of the right form names a page this listing never had.
    expect(otherFilters.status).toBe(404);
    expect(otherFilters.body.issues[0]).toEqual({
      path: 'querystring.cursor',
      message: 'belongs to a listing with other filters: repeat the same filters',
    });
    expect((await get('/v1/pipelines', null)).status).toBe(401);
  });
});

import SwaggerParser from '@apidevtools/swagger-parser';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { setTimeout as delay } from 'node:timers/promises';
import path from 'node:path';
import { createApiServer } from '../../src/api/server';
import { startTraining } from '@avatar-pipeline/client/client/model-runs';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { CampaignRig, FAST_POLLING } from '../helpers/campaign-rig';
import { fsStorage, testConfig } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { openEventStream, type ReceivedEvent } from '../helpers/sse-client';
import { createDevServerEnv, makeScratchDir, uniqueName } from '../helpers/temporal-env';

const TOKEN = 'campaign-token-0123456789';

describe('campaign routes of the starter API', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let rig: CampaignRig;
  let app: FastifyInstance;
  let base: string;
  let selfies: { dir: string; files: string[] };
  let stop: () => void;
  let running: Promise<unknown>;

  beforeAll(async () => {
    env = await createDevServerEnv();
    selfies = await writeSelfies(2, 'campaign-api-');
    const blobDir = await makeScratchDir('campaign-api');
    sim = await startSimulator({
      progression: { mode: 'wall', trainingMs: 150, generationMs: 150 },
      avatarsPerOrder: 2,
      failStyles: [19],
    });
    rig = await CampaignRig.create({
      connection: env.nativeConnection,
      client: env.client,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
      blobDir,
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    stop = release;
    running = rig.run(() => released);
    const base_ = testConfig({
      namespace: env.namespace,
      taskQueue: rig.taskQueue,
      providerUrl: sim.url,
      imageRoots: [selfies.dir],
    });
    const config = {
      ...base_,
      api: { ...base_.api, tokens: [TOKEN], blobDir: path.join(selfies.dir, 'blobs') },
      campaigns: { maxInFlight: 4 },
      storage: fsStorage(blobDir),
    };
    app = await createApiServer({
      config,
      client: env.client,
      provider: new ProviderClient(config.provider),
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
    stop?.();
    await running;
    await sim?.stop();
    await env?.teardown();
  });

  async function call(method: string, url: string, body?: unknown, token: string | null = TOKEN) {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    let payload: string | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${base}${url}`, { method, headers, ...(payload ? { body: payload } : {}) });
    const text = await response.text();
    let json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text, json, type: response.headers.get('content-type') };
  }

  async function waitUntilEnded(id: string) {
    for (let i = 0; i < 300; i++) {
      const { json } = await call('GET', `/v1/campaigns/${id}`);
      if (json?.status !== 'RUNNING') return json;
      await delay(200);
    }
    throw new Error(`campaign ${id} did not end`);
  }

  test('an invalid JSON manifest is refused with every bad row, and nothing starts', async () => {
    const [a] = selfies.files as [string];
    const id = uniqueName('refused');
    const res = await call('POST', '/v1/campaigns', {
      campaignId: id,
      subjects: [
        { subjectId: 'ok', gender: 1, styles: [3], selfies: [a] },
        { subjectId: 'bad', gender: 7, styles: [3, 3], selfies: ['relative.png'] },
        { subjectId: 'ok', gender: 2, styles: [5], selfies: [a], extra: 1 },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatch(/nothing was started/);
    const paths = res.json.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'subjects.1.gender',
        'subjects.1.styles',
        'subjects.1.selfies.0',
        'subjects.2.extra',
        'subjects.0.subjectId',
        'subjects.2.subjectId',
      ]),
    );
    expect((await call('GET', `/v1/campaigns/default.${id}`)).status).toBe(404);
  });

  test('a 10,000-row manifest of duplicates is answered 422 with the first 100 issues and their total', async () => {
    const id = uniqueName('duplicates');
    const subjects = Array.from({ length: 10_000 }, (_, i) => ({
      subjectId: `dup-${i % 10}`,
      gender: 1,
      styles: [3],
      selfies: ['relative.png'],
    }));
    const res = await call('POST', '/v1/campaigns', { campaignId: id, subjects });
    expect(res.status).toBe(422);
    expect(res.json.issues).toHaveLength(100);
    expect(res.json.error).toMatch(
      /10000 problem\(s\) in 10000 of 10000 row\(s\).*first 100 of 10000 issues/,
    );
    expect(res.text.length).toBeLessThan(64 * 1024);
    expect((await call('GET', `/v1/campaigns/default.${id}`)).status).toBe(404);
  });

  test("a campaign id in the pipelines' workflow-id space is refused, so it cannot squat an Idempotency-Key", async () => {
    const [a] = selfies.files as [string];
    const key = uniqueName('squat');
    const res = await call('POST', '/v1/campaigns', {
      campaignId: `avatar-pipeline-${key}`,
      subjects: [{ subjectId: 'ok', gender: 1, styles: [3], selfies: [a] }],
    });
    expect(res.status).toBe(422);
    expect(res.json.issues).toEqual([
      { path: 'campaignId', message: expect.stringMatching(/must not start with "avatar-pipeline-"/) },
    ]);
    const form = new FormData();
    form.set('campaignId', `AVATAR-PIPELINE-${key}`);
    form.set('manifest', new Blob([`subjectId,gender,styles,selfies\nok,1,3,${a}\n`]), 'm.csv');
    const upload = await call('POST', '/v1/campaigns', form);
    expect(upload.status).toBe(422);
    expect(upload.json.issues).toEqual([
      { path: 'campaignId', message: expect.stringMatching(/must not start with "avatar-pipeline-"/) },
    ]);
    expect((await call('GET', `/v1/pipelines/default.avatar-pipeline-${key}`)).status).toBe(404);
  });

  test('an uploaded CSV with skipInvalid: the good rows run; status, summary, results as CSV and JSONL, retry', async () => {
    const [a, b] = selfies.files as [string, string];
    const csv = [
      'subjectId,gender,styles,selfies,mainImage',
      `anna,1,3;5,${a};${b},2`,
      `ben,2,19,${a},`,
      `cleo,3,3,${a},`,
    ].join('\n');
    const form = new FormData();
    form.set('skipInvalid', 'true');
    form.set('maxInFlight', '2');
    form.set('manifest', new Blob([csv], { type: 'text/csv' }), 'people.csv');
    const started = await call('POST', '/v1/campaigns', form);
    expect(started.status).toBe(202);
    expect(started.json).toMatchObject({
      total: 2,
      skipped: [{ row: 4, subjectId: 'cleo', field: 'gender', message: 'must be 1 (woman) or 2 (man)' }],
    });
    const id: string = started.json.campaignId;

    const ended = await waitUntilEnded(id);
    expect(ended).toMatchObject({
      status: 'COMPLETED',
      progress: { state: 'completed', counts: { done: 1, failed: 1 } },
    });
    const summary = await call('GET', `/v1/campaigns/${id}/summary`);
    expect(summary.json).toMatchObject({ workflowId: id, total: 2, succeeded: 1, failed: 1 });
    expect(summary.json.subjects[1]).toMatchObject({ subjectId: 'ben', status: 'FAILED' });
    expect(summary.json.subjects[1].error).toMatch(/could not be rendered/);

    const csvRows = await call('GET', `/v1/campaigns/${id}/results.csv`);
    expect(csvRows.type).toMatch(/text\/csv/);
    const lines = csvRows.text.trim().split('\n');
    expect(lines[0]).toBe('subjectId,modelId,styleId,avatarId,imageUrl,archiveKey,check');
    const annaModel = summary.json.subjects[0].modelId as number;
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual([
      `anna,${annaModel},3`,
      `anna,${annaModel},3`,
      `anna,${annaModel},5`,
      `anna,${annaModel},5`,
    ]);
    const jsonl = await call('GET', `/v1/campaigns/${id}/results.jsonl`);
    const rows = jsonl.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(4);
    expect(rows[0]).toEqual({
      subjectId: 'anna',
      modelId: annaModel,
      styleId: 3,
      avatarId: expect.any(Number),
      imageUrl: expect.stringMatching(/^http/),
    });

    expect((await call('POST', `/v1/campaigns/${id}/pause`)).status).toBe(409);
    expect((await call('POST', `/v1/campaigns/${id}/retry`, { subjectIds: ['anna'] })).status).toBe(422);
    sim.setOptions({ failStyles: [] });
    const retried = await call('POST', `/v1/campaigns/${id}/retry`, { subjectIds: ['ben'] });
    expect(retried.status).toBe(202);
    expect(retried.json.queued).toBe(1);
    await delay(300);
    await waitUntilEnded(id);
    const after = await call('GET', `/v1/campaigns/${id}/summary`);
    expect(after.json).toMatchObject({ succeeded: 2, failed: 0 });
    expect(after.json.subjects[1]).toMatchObject({ subjectId: 'ben', status: 'DONE', attempts: 2 });
  });

  /** Every event of a campaign's stream until it ends (after `lastEventId` when given). */
  async function readStream(id: string, options: { lastEventId?: string; stopAfter?: number } = {}) {
    const stream = await openEventStream(`${base}/v1/campaigns/${id}/events`, {
      authorization: `Bearer ${TOKEN}`,
      ...(options.lastEventId ? { 'last-event-id': options.lastEventId } : {}),
    });
    expect(stream.status).toBe(200);
    const events: ReceivedEvent[] = [];
    try {
      for (;;) {
        const event = await stream.next(30_000);
        if (!event) return events;
        events.push(event);
        if (events.length === options.stopAfter) return events;
      }
    } finally {
      stream.close();
    }
  }

  test('modelId rows generate under an existing model (one new model for one trained row); the event stream crosses runs without a gap; results carry modelId', async () => {
    sim.setOptions({ progression: { mode: 'wall', trainingMs: 400, generationMs: 400 } });
    const [a] = selfies.files as [string];
    const training = await startTraining(
      env.client,
      { images: [a], styles: [3], gender: 2, subjectId: 'owner', polling: FAST_POLLING },
      rig.placement,
    );
    const { modelId } = (await env.client.workflow.getHandle(training.workflowId).result()) as {
      modelId: number;
    };
    const modelsBefore = sim.stats().totals.modelsCreated;

    // Checked as a generation start checks its model: by the provider, each problem naming its field.
    const refused = await call('POST', '/v1/campaigns', {
      subjects: [
        { subjectId: 'x1', gender: 2, styles: [3], modelId: 999_999 },
        { subjectId: 'x2', gender: 1, styles: [3], modelId },
        { subjectId: 'x3', gender: 2, styles: [3], modelId: 'one' },
        { subjectId: 'x4', gender: 2, styles: [3], modelId, selfies: [a] },
      ],
    });
    expect(refused.status).toBe(422);
    expect(refused.json.issues.map((i: { path: string }) => i.path)).toEqual([
      'subjects.0.modelId',
      'subjects.1.gender',
      'subjects.2.modelId',
      'subjects.3.selfies',
    ]);
    expect(refused.json.issues[0].message).toMatch(/the provider has no model 999999/);
    expect(refused.json.issues[1].message).toMatch(new RegExp(`model ${modelId} was trained for gender 2`));

    const started = await call('POST', '/v1/campaigns', {
      subjects: [
        { subjectId: 'trained', gender: 1, styles: [3], selfies: [a] },
        { subjectId: 'reused', gender: 2, styles: [5, 7], modelId },
      ],
      // One subject per run: the stream crosses a continue-as-new.
      options: { maxInFlight: 1, fixedWindow: true, subjectsPerRun: 1, polling: FAST_POLLING },
    });
    expect(started.status).toBe(202);
    const id: string = started.json.campaignId;
    expect(started.json.links.events).toBe(`/v1/campaigns/${id}/events`);

    // One client reads it all; another leaves after two events and comes back with Last-Event-ID.
    const [whole, resumed] = await Promise.all([
      readStream(id),
      (async () => {
        const first = await readStream(id, { stopAfter: 2 });
        const rest = await readStream(id, { lastEventId: first[first.length - 1]!.id! });
        return [...first, ...rest];
      })(),
    ]);
    for (const events of [whole, resumed]) {
      const progress = events.slice(0, -1);
      expect(progress.every((e) => e.event === 'progress' && e.data.skipped === false)).toBe(true);
      // Numbered 1, 2, 3, … across both runs: nothing repeated, nothing skipped.
      expect(progress.map((e) => Number(e.id))).toEqual(progress.map((_, i) => i + 1));
      expect(progress.map((e) => e.data.version)).toEqual(progress.map((_, i) => i + 1));
      expect(events[events.length - 1]).toMatchObject({ event: 'result', id: 'end' });
    }
    const versions = (events: ReceivedEvent[]) => events.map((e) => e.data.progress?.counts);
    expect(versions(resumed)).toEqual(versions(whole));
    const runs = new Set(whole.slice(0, -1).map((e) => e.data.progress.run));
    expect(runs.size).toBeGreaterThanOrEqual(2);
    const last = whole[whole.length - 1]!.data;
    expect(last).toMatchObject({ status: 'COMPLETED', total: 2, succeeded: 2 });
    const states = whole.slice(0, -1).map((e) => e.data.progress.state);
    expect(states[states.length - 1]).toBe('completed');

    // The trained row made the only new model; the other generated under the existing one.
    expect(sim.stats().totals.modelsCreated).toBe(modelsBefore + 1);
    const byId = Object.fromEntries(
      (last.subjects as { subjectId: string; modelId: number; status: string }[]).map((s) => [
        s.subjectId,
        s,
      ]),
    );
    expect(byId.reused).toMatchObject({ status: 'DONE', modelId, avatarCount: 4 });
    expect(byId.trained).toMatchObject({ status: 'DONE', avatarCount: 2 });
    expect(byId.trained!.modelId).not.toBe(modelId);

    const csv = await call('GET', `/v1/campaigns/${id}/results.csv`);
    const [header, ...rows] = csv.text.trim().split('\n');
    expect(header).toBe('subjectId,modelId,styleId,avatarId,imageUrl,archiveKey,check');
    expect(rows.map((r) => r.split(',').slice(0, 3).join(','))).toEqual([
      `trained,${byId.trained!.modelId},3`,
      `trained,${byId.trained!.modelId},3`,
      `reused,${modelId},5`,
      `reused,${modelId},5`,
      `reused,${modelId},7`,
      `reused,${modelId},7`,
    ]);
    const jsonl = await call('GET', `/v1/campaigns/${id}/results.jsonl`);
    expect(JSON.parse(jsonl.text.split('\n')[0]!)).toMatchObject({
      subjectId: 'trained',
      modelId: byId.trained!.modelId,
    });

    // After the end: a reconnect naming `end` is told to stop; no token is 401; unknown is 404.
    const again = await fetch(`${base}/v1/campaigns/${id}/events`, {
      headers: { authorization: `Bearer ${TOKEN}`, 'last-event-id': 'end' },
    });
    expect(again.status).toBe(204);
    expect((await call('GET', `/v1/campaigns/${id}/events`, undefined, null)).status).toBe(401);
    expect((await call('GET', '/v1/campaigns/no-such-campaign/events')).status).toBe(404);
  });

  test('pause and cancel a running campaign; unknown ids are 404; no token is 401; the OpenAPI document stays valid', async () => {
    sim.setOptions({ progression: { mode: 'wall', trainingMs: 2_000, generationMs: 150 } });
    const [a] = selfies.files as [string];
    const subjects = Array.from({ length: 6 }, (_, i) => ({
      subjectId: `p${i}`,
      gender: 1,
      styles: [3],
      selfies: [a],
    }));
    const started = await call('POST', '/v1/campaigns', {
      subjects,
      options: { maxInFlight: 1, polling: FAST_POLLING },
    });
    expect(started.status).toBe(202);
    const id: string = started.json.campaignId;
    const paused = await call('POST', `/v1/campaigns/${id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.json.state).toBe('paused');
    const cancelled = await call('POST', `/v1/campaigns/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.counts.pending).toBe(0);
    await waitUntilEnded(id);
    const summary = await call('GET', `/v1/campaigns/${id}/summary`);
    expect(summary.json).toMatchObject({ status: 'CANCELLED', total: 6 });
    expect(summary.json.cancelled).toBeGreaterThanOrEqual(5);

    expect((await call('GET', '/v1/campaigns/no-such-campaign')).status).toBe(404);
    expect((await call('GET', `/v1/campaigns/${id}`, undefined, null)).status).toBe(401);
    const doc = await call('GET', '/openapi.json', undefined, null);
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining([
        '/v1/campaigns',
        '/v1/campaigns/{id}',
        '/v1/campaigns/{id}/results.csv',
        '/v1/campaigns/{id}/events',
      ]),
    );
    await expect(SwaggerParser.validate(doc.json)).resolves.toBeDefined();
  });
});

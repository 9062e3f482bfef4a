import { setTimeout as delay } from 'node:timers/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_API_LIMITS } from '../../src/api/server';
import { followProgress, type ProgressStreamEvent } from '@avatar-pipeline/client/client/progress-stream';
import { progressChangesQuery } from '@avatar-pipeline/client/contracts/progress-feed';
import type { PipelineProgress, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { pipelineStartAttributes } from '@avatar-pipeline/client/contracts/search-attributes';
import { DEFAULT_TENANT, tenantWorkflowId } from '@avatar-pipeline/client/contracts/workflow-ids';
import { testConfig } from '../helpers/pipeline-worker';
import { openEventStream, type EventStreamReader, type ReceivedEvent } from '../helpers/sse-client';
import { createDevServerEnv, makeScratchDir, uniqueName } from '../helpers/temporal-env';
import { advanceSignal } from '../stand-in-workflows/progress-feed-stand-in';
import { startTestApi, withApi } from '../helpers/test-api';

const TOKEN = 'events-token-0123456789';

/**
 * The event stream against a stand-in pipeline whose progress moves only when the test signals it,
 * so the test knows exactly which versions exist at each moment.
 */
describe('GET /v1/pipelines/{id}/events (progress feed over Server-Sent Events)', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let workerRun: Promise<void>;
  let app: FastifyInstance;
  let base: string;
  const taskQueue = uniqueName('events');

  beforeAll(async () => {
    env = await createDevServerEnv();
    worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue,
      workflowBundle: await bundleWorkflowCode({
        workflowsPath: require.resolve('../stand-in-workflows/progress-feed-stand-in'),
        logger: new DefaultLogger('WARN'),
      }),
    });
    workerRun = worker.run();
    const config = testConfig({
      namespace: env.namespace,
      taskQueue,
      providerUrl: 'http://127.0.0.1:9',
      imageRoots: [await makeScratchDir('events')],
    });
    ({ app, base } = await startTestApi({
      config: withApi(config, { tokens: [TOKEN] }),
      client: env.client,
    }));
  });

  afterAll(async () => {
    await app?.close();
    worker?.shutdown();
    await workerRun;
    await env?.teardown();
  });

  /** Starts a stand-in pipeline as the API token's tenant (a bare token's: `default`) starts its runs. */
  async function start(steps: number, capacity?: number): Promise<string> {
    const workflowId = tenantWorkflowId(DEFAULT_TENANT, uniqueName('stand-in'));
    await env.client.workflow.start('avatarPipeline', {
      taskQueue,
      workflowId,
      args: [{ steps, ...(capacity ? { capacity } : {}) }],
      typedSearchAttributes: pipelineStartAttributes({ tenant: DEFAULT_TENANT }),
    });
    return workflowId;
  }

  const advance = (workflowId: string, how: { fail?: boolean } = {}) =>
    env.client.workflow.getHandle(workflowId).signal(advanceSignal, how);

  const connect = (workflowId: string, lastEventId?: string, token: string | null = TOKEN) =>
    openEventStream(`${base}/v1/pipelines/${workflowId}/events`, {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    });

  async function expectProgress(stream: EventStreamReader, version: number): Promise<ReceivedEvent> {
    const event = await stream.next();
    expect(event).toMatchObject({
      event: 'progress',
      id: String(version),
      data: { version, skipped: false },
    });
    expect(event!.data.progress.uploads.done).toBe(version - 1);
    return event!;
  }

  it('sends each change in order and the result last, then ends; resumes after Last-Event-ID with no gap and no repeat', async () => {
    const id = await start(5);
    const first = await connect(id);
    expect(first.status).toBe(200);
    await expectProgress(first, 1);
    await advance(id);
    await expectProgress(first, 2);
    await advance(id);
    await expectProgress(first, 3);
    first.close();

    // Two changes while nobody listens; the reconnect names the last event it got.
    await advance(id);
    await advance(id);
    await delay(300);
    const second = await connect(id, '3');
    await expectProgress(second, 4);
    await expectProgress(second, 5);
    await advance(id);
    await expectProgress(second, 6);
    const last = await second.next();
    expect(last).toMatchObject({ event: 'result', id: 'end', data: { workflowId: id, status: 'DONE' } });
    expect(await second.next()).toBeUndefined();

    // A client that saw the end (EventSource reconnects by itself) is told there is nothing more.
    const after = await fetch(`${base}/v1/pipelines/${id}/events`, {
      headers: { authorization: `Bearer ${TOKEN}`, 'last-event-id': 'end' },
    });
    expect(after.status).toBe(204);

    // A closed run still streams what it kept after the given version, then its outcome.
    const replay = await connect(id, '4');
    await expectProgress(replay, 5);
    await expectProgress(replay, 6);
    expect(await replay.next()).toMatchObject({ event: 'result', id: 'end' });
    expect(await replay.next()).toBeUndefined();
  });

  it('ends with the error of a failed run', async () => {
    const id = await start(3);
    const stream = await connect(id);
    await expectProgress(stream, 1);
    await advance(id, { fail: true });
    expect(await stream.next()).toMatchObject({
      event: 'error',
      id: 'end',
      data: { message: 'step 1 failed', type: 'StandInFailure' },
    });
    expect(await stream.next()).toBeUndefined();
  });

  it('marks a resume from further back than the run keeps as skipped', async () => {
    const id = await start(6, 2);
    for (let i = 0; i < 6; i++) await advance(id);
    // The signals are delivered, not yet all handled: wait until the run has made all 7 versions.
    for (let tries = 0; ; tries++) {
      const kept = await env.client.workflow.getHandle(id).query(progressChangesQuery, { afterVersion: 0 });
      if (kept.changes.at(-1)?.version === 7) break;
      if (tries > 100) throw new Error(`the stand-in did not reach version 7: ${JSON.stringify(kept)}`);
      await delay(50);
    }
    const stream = await connect(id, '1');
    const event = await stream.next();
    expect(event).toMatchObject({ event: 'progress', id: '6', data: { version: 6, skipped: true } });
    await expectProgress(stream, 7);
    expect(await stream.next()).toMatchObject({ event: 'result' });
    stream.close();
  });

  it('keeps a stream open past the API request deadline (it bounds receiving a request, not the answer)', async () => {
    const config = testConfig({
      namespace: env.namespace,
      taskQueue,
      providerUrl: 'http://127.0.0.1:9',
      imageRoots: [await makeScratchDir('events')],
    });
    const { app: strict, base: at } = await startTestApi({
      config: withApi(config, {
        tokens: [TOKEN],
        limits: { ...DEFAULT_API_LIMITS, requestTimeoutMs: 1_000 },
      }),
      client: env.client,
    });
    try {
      const id = await start(1);
      const stream = await openEventStream(`${at}/v1/pipelines/${id}/events`, {
        authorization: `Bearer ${TOKEN}`,
      });
      await expectProgress(stream, 1);
      await delay(3_000);
      await advance(id);
      await expectProgress(stream, 2);
      expect(await stream.next()).toMatchObject({ event: 'result', id: 'end' });
    } finally {
      await strict.close();
    }
  });

  it('answers 429 past the streams allowed open at once per run and per token, and takes one again once closed', async () => {
    const config = testConfig({
      namespace: env.namespace,
      taskQueue,
      providerUrl: 'http://127.0.0.1:9',
      imageRoots: [await makeScratchDir('events')],
    });
    const other = 'events-token-other-0123456789';
    const { app: capped, base: at } = await startTestApi({
      config: withApi(config, {
        tokens: [TOKEN, other],
        limits: { ...DEFAULT_API_LIMITS, eventStreamsPerRun: 2, eventStreamsPerToken: 3 },
      }),
      client: env.client,
    });
    const streams: EventStreamReader[] = [];
    const open = async (id: string, token = TOKEN) => {
      const stream = await openEventStream(`${at}/v1/pipelines/${id}/events`, {
        authorization: `Bearer ${token}`,
      });
      streams.push(stream);
      return stream;
    };
    try {
      const [one, two, three] = [await start(1), await start(1), await start(1)];
      const first = await open(one);
      await expectProgress(first, 1);
      await expectProgress(await open(one, other), 1);
      const refused = await fetch(`${at}/v1/pipelines/${one}/events`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({
        error: `Too many event streams open on run ${one}: at most 2; close one and retry`,
        issues: [],
      });
      await expectProgress(await open(two), 1);
      await expectProgress(await open(two), 1);
      const perToken = await fetch(`${at}/v1/pipelines/${three}/events`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(perToken.status).toBe(429);
      expect(((await perToken.json()) as { error: string }).error).toMatch(/with this token: at most 3/);

      first.close();
      for (let tries = 0; ; tries++) {
        const again = await open(one);
        if (again.status === 200) break;
        again.close();
        if (tries > 50) throw new Error("the closed stream's place was not freed");
        await delay(100);
      }
      await advance(one);
      await advance(two);
      await advance(three);
    } finally {
      for (const stream of streams) stream.close();
      await capped.close();
    }
  });

  it('follows a run with the client package\u2019s followProgress, from the start or after a version, and writes nothing to its history', async () => {
    const id = await start(3);
    const seen: ProgressStreamEvent<PipelineProgress, PipelineResult>[] = [];
    for await (const event of followProgress<PipelineProgress, PipelineResult>(env.client, id, {
      minIntervalMs: 100,
    })) {
      seen.push(event);
      if (event.type === 'progress' && event.version < 4) await advance(id);
    }
    expect(seen.map((e) => (e.type === 'progress' ? `${e.version}${e.skipped ? '*' : ''}` : e.type))).toEqual(
      ['1', '2', '3', '4', 'result'],
    );
    const resumed: string[] = [];
    for await (const event of followProgress(env.client, id, { afterVersion: 2 })) {
      resumed.push(event.type === 'progress' ? String(event.version) : event.type);
    }
    expect(resumed).toEqual(['3', '4', 'result']);
    // Nothing of the following was written to the run's history.
    const { events } = await env.client.workflow.getHandle(id).fetchHistory();
    const updates = (events ?? []).filter(
      (e) =>
        e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionUpdateCompletedEventAttributes,
    );
    expect(updates).toHaveLength(0);
  });

  it('answers 401 without a token, 404 for an unknown run, 422 for a Last-Event-ID that is not one', async () => {
    const id = await start(1);
    const anonymous = await fetch(`${base}/v1/pipelines/${id}/events`);
    expect(anonymous.status).toBe(401);
    const unknown = await fetch(`${base}/v1/pipelines/no-such-run/events`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(unknown.status).toBe(404);
    const bad = await fetch(`${base}/v1/pipelines/${id}/events`, {
      headers: { authorization: `Bearer ${TOKEN}`, 'last-event-id': 'yesterday' },
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { issues: { path: string }[] }).issues[0]?.path).toBe(
      'headers.last-event-id',
    );
    await advance(id);
  });

  it('documents the route as text/event-stream with its errors', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    const route = doc.paths['/v1/pipelines/{id}/events'].get;
    expect(Object.keys(route.responses).sort()).toEqual([
      '200',
      '204',
      '400',
      '401',
      '403',
      '404',
      '422',
      '429',
    ]);
    expect(Object.keys(route.responses['200'].content)).toEqual(['text/event-stream']);
  });
});

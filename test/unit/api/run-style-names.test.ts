import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createApiServer } from '../../../src/api/server';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import type { Style } from '@avatar-pipeline/client/provider/schemas';
import { fakeTemporalClient } from '../../helpers/fake-temporal-client';
import { logSink } from '../../helpers/log-sink';
import { fsStorage, testConfig } from '../../helpers/pipeline-worker';
import { temporaryDirectory } from '../../helpers/temp-dir';

const TOKEN = 'acme-token-0123456789abcdef';
const RUN = 'acme.run-2f9c41d7';

/** Three styles of a run: one done, one generating, one not started; the provider offers a fourth. */
const PROGRESS = {
  stage: 'generating',
  uploads: { done: 12, total: 12 },
  training: { polls: 40 },
  styles: [
    { styleId: 3, stage: 'done', orderId: 1006 },
    { styleId: 7, stage: 'polling', orderId: 1007 },
    { styleId: 12, stage: 'pending' },
  ],
};
const OFFERED = [
  { id: 3, name: 'Watercolor' },
  { id: 7, name: 'Cyberpunk' },
  { id: 9, name: 'Oil portrait' },
  { id: 12, name: 'Anime' },
] as Style[];

async function startApi(listStyles: () => Promise<Style[]>): Promise<{ app: FastifyInstance; base: string }> {
  const root = temporaryDirectory('style-names-');
  const config = testConfig({ taskQueue: 'q', providerUrl: 'http://127.0.0.1:1', imageRoots: [root] });
  const app = await createApiServer({
    config: {
      ...config,
      api: {
        ...config.api,
        tokens: [`acme:${TOKEN}`],
        blobDir: path.join(root, 'blobs'),
        accessTokenSecret: 'an-access-token-secret-of-32-characters!',
      },
      storage: fsStorage(path.join(root, 'blobs')),
    },
    client: fakeTemporalClient({
      [RUN]: {
        type: WORKFLOW_TYPES.pipeline,
        tenant: 'acme',
        progress: PROGRESS,
        startTime: new Date('2026-12-01T09:00:00Z'),
      },
    }),
    provider: { listStyles } as never,
    logger: { level: 'warn', stream: logSink(() => undefined) },
  });
  return { app, base: await app.listen({ port: 0, host: '127.0.0.1' }) };
}

async function getJson(
  url: string,
  token: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: url.endsWith('/access-tokens') ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("a run's status names its styles", () => {
  test("for a shared link's token too, which cannot read GET /v1/styles; from a list asked once", async () => {
    let asked = 0;
    const { app, base } = await startApi(async () => {
      asked += 1;
      return OFFERED;
    });
    try {
      const signedIn = await getJson(`${base}/v1/pipelines/${RUN}`, TOKEN);
      expect(signedIn.status).toBe(200);
      expect(signedIn.body.styleNames).toEqual([
        { id: 3, name: 'Watercolor' },
        { id: 7, name: 'Cyberpunk' },
        { id: 12, name: 'Anime' },
      ]);

      const grant = await getJson(`${base}/v1/pipelines/${RUN}/access-tokens`, TOKEN);
      expect(grant.status).toBe(201);
      const shared = String(grant.body.token);
      expect((await getJson(`${base}/v1/styles`, shared)).status).toBe(404);
      const viaLink = await getJson(`${base}/v1/pipelines/${RUN}`, shared);
      expect(viaLink.status).toBe(200);
      expect(viaLink.body.styleNames).toEqual(signedIn.body.styleNames);
      expect(asked).toBe(1);
    } finally {
      await app.close();
    }
  });

  test('leaves them out, and still answers, while the provider cannot be asked', async () => {
    const { app, base } = await startApi(async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:1');
    });
    try {
      const answer = await getJson(`${base}/v1/pipelines/${RUN}`, TOKEN);
      expect(answer.status).toBe(200);
      expect(answer.body).not.toHaveProperty('styleNames');
      expect(answer.body.progress).toMatchObject({ stage: 'generating' });
    } finally {
      await app.close();
    }
  });
});

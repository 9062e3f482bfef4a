import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { createApiServer } from '../../../src/api/server';
import { fsStorage, testConfig } from '../../helpers/pipeline-worker';
import { temporaryDirectory } from '../../helpers/temp-dir';

const TOKEN = 'operator-options-token-0123456789';

/**
 * A campaign's fairness weight and priority are the operator's (tenants file, CLI): a caller
 * naming either in a campaign body is refused with 422 naming the field, before anything reaches
 * Temporal (the API runs here with a client that is never called).
 */
describe('POST /v1/campaigns refuses the operator-only options', () => {
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    const root = temporaryDirectory('operator-options-');
    const config = testConfig({ taskQueue: 'q', providerUrl: 'http://127.0.0.1:1', imageRoots: [root] });
    app = await createApiServer({
      config: {
        ...config,
        api: { ...config.api, tokens: [TOKEN], blobDir: path.join(root, 'blobs') },
        storage: fsStorage(path.join(root, 'blobs')),
        campaigns: { maxInFlight: 4 },
      },
      client: {} as Client,
      provider: { listStyles: () => Promise.resolve([{ id: 3, name: 'Oil', ready: true }]) } as never,
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
  });

  async function answer(res: Response) {
    return {
      status: res.status,
      body: (await res.json()) as { error: string; issues: { path: string; message: string }[] },
    };
  }

  const json = (options: Record<string, unknown>) =>
    fetch(`${base}/v1/campaigns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        subjects: [{ subjectId: 'u1', gender: 1, styles: [3], selfies: ['/nowhere/a.png'] }],
        options,
      }),
    }).then(answer);

  test.each([
    ['priorityKey', { priorityKey: 1 }],
    ['fairnessWeight', { fairnessWeight: 1000 }],
    // Even the default values: the caller has no say.
    ['priorityKey', { priorityKey: 4, maxInFlight: 5 }],
  ])('a JSON body with options.%s: 422 naming it', async (field, options) => {
    const { status, body } = await json(options);
    expect(status).toBe(422);
    expect(body.issues).toEqual([
      {
        path: `options.${field}`,
        message: expect.stringMatching(
          new RegExp(`^is not a caller's option: the operator sets each tenant's ${field}`),
        ),
      },
    ]);
  });

  test('a JSON body with both: each named', async () => {
    const { status, body } = await json({ priorityKey: 1, fairnessWeight: 50 });
    expect(status).toBe(422);
    expect(body.issues.map((i) => i.path).sort()).toEqual(['options.fairnessWeight', 'options.priorityKey']);
  });

  test.each(['priorityKey', 'fairnessWeight'])(
    'a multipart form with a %s field: 422 naming it',
    async (field) => {
      const form = new FormData();
      form.set(
        'manifest',
        new Blob(['subjectId,gender,styles,selfies,mainImage\nu1,1,3,/a.png,\n']),
        'people.csv',
      );
      form.set(field, '1');
      const { status, body } = await answer(
        await fetch(`${base}/v1/campaigns`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}` },
          body: form,
        }),
      );
      expect(status).toBe(422);
      expect(body.issues).toEqual([
        { path: field, message: expect.stringMatching(/^is not a caller's option: the operator sets/) },
      ]);
    },
  );
});

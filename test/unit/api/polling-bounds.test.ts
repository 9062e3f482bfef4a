import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { createApiServer } from '../../../src/api/server';
import { pollingWithin } from '@avatar-pipeline/client/contracts/polling-bounds';
import { pipelineInputSchema } from '@avatar-pipeline/client/contracts/pipeline-input';
import { loadConfig } from '../../../src/config/load-config';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { tinyPng } from '../../fixtures/images';
import { fsStorage, testConfig } from '../../helpers/pipeline-worker';
import { temporaryDirectory } from '../../helpers/temp-dir';
import { writeFileSync } from 'node:fs';

const TOKEN = 'polling-bounds-token-0123456789';
const BOUNDS = { minIntervalMs: 5_000, maxIntervalMs: 600_000 };

// Trust III, M5: callers set provider polling down to 1 ms, against a quota all tenants share.
describe('polling intervals are bounded by the operator', () => {
  let app: FastifyInstance;
  let base: string;
  let image: string;
  const started: { polling: unknown; pollingBounds?: unknown }[] = [];

  beforeAll(async () => {
    const root = temporaryDirectory('polling-bounds-');
    image = path.join(root, 'selfie.png');
    writeFileSync(image, tinyPng());
    const config = testConfig({ taskQueue: 'q', providerUrl: 'http://127.0.0.1:1', imageRoots: [root] });
    const pollingBlobs = path.join(temporaryDirectory('polling-blobs-'), 'b');
    const start = async (_type: unknown, options: { args: [{ polling: unknown }] }) => {
      started.push(options.args[0]);
      throw new Error('stop here: the test reads what would have started');
    };
    app = await createApiServer({
      config: {
        ...config,
        placement: { ...config.placement, pollingBounds: BOUNDS },
        api: { ...config.api, tokens: [TOKEN], blobDir: pollingBlobs },
        storage: fsStorage(pollingBlobs),
      },
      client: { workflow: { start }, options: { namespace: 'default' } } as unknown as Client,
      provider: { listStyles: () => Promise.resolve([{ id: 3, name: 'Oil', ready: true }]) } as never,
      logger: false,
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
  });

  const startPipeline = async (polling: unknown) => {
    const res = await fetch(`${base}/v1/pipelines`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ images: [image], styles: [3], gender: 1, polling }),
    });
    return { status: res.status, body: (await res.json()) as { issues?: unknown } };
  };

  test('a caller asking outside the bounds gets 422 naming each field, and nothing starts', async () => {
    const answer = await startPipeline({ initialIntervalMs: 1, minIntervalMs: 1, maxIntervalMs: 3_600_000 });
    expect(answer.status).toBe(422);
    const message = "must be between 5000 and 600000 ms (the operator's polling bounds)";
    expect(answer.body.issues).toEqual([
      { path: 'polling.initialIntervalMs', message },
      { path: 'polling.maxIntervalMs', message },
      { path: 'polling.minIntervalMs', message },
    ]);
    expect(started).toEqual([]);
  });

  test('training starts are held to the same bounds, naming the field', async () => {
    const post = async (url: string, body: unknown) => {
      const res = await fetch(`${base}${url}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { issues?: unknown } };
    };
    const training = await post('/v1/models', {
      images: [image],
      styles: [3],
      gender: 1,
      polling: { minIntervalMs: 1 },
    });
    expect(training).toMatchObject({ status: 422, body: { issues: [{ path: 'polling.minIntervalMs' }] } });
    expect(started).toEqual([]);
  });

  test('defaults the caller did not write start within the bounds, and the run carries them', async () => {
    const answer = await startPipeline({ maxIntervalMs: 30_000 });
    expect(answer.status).toBe(500);
    expect(started).toHaveLength(1);
    expect(started[0]!.polling).toMatchObject({
      initialIntervalMs: 5_000,
      minIntervalMs: 5_000,
      maxIntervalMs: 30_000,
    });
    expect(started[0]!.pollingBounds).toEqual(BOUNDS);
  });

  test('the workflow holds any polling within the bounds it was started under', () => {
    const polling = pipelineInputSchema.shape.polling.parse({
      initialIntervalMs: 1,
      minIntervalMs: 1,
      maxIntervalMs: 3_600_000,
      maxProgressIntervalMs: 2,
    });
    expect(pollingWithin(polling, BOUNDS)).toEqual({
      ...polling,
      initialIntervalMs: 5_000,
      minIntervalMs: 5_000,
      maxIntervalMs: 600_000,
      maxProgressIntervalMs: 5_000,
    });
    expect(pollingWithin(polling, undefined)).toBe(polling);
  });

  test('the bounds are settings: 5 s to 1 hour by default, and a minimum above the maximum is refused', () => {
    expect(loadConfig({}, '/srv/app').placement.pollingBounds).toEqual({
      minIntervalMs: 5_000,
      maxIntervalMs: 3_600_000,
    });
    expect(() =>
      loadConfig(
        { PROVIDER_POLL_MIN_INTERVAL_MS: '60000', PROVIDER_POLL_MAX_INTERVAL_MS: '30000' },
        '/srv/app',
      ),
    ).toThrow(ConfigError);
  });
});

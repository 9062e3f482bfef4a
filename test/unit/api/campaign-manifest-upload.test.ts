import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { createApiServer } from '../../../src/api/server';
import { MAX_MANIFEST_ROWS } from '../../../src/campaign/manifest';
import { fsStorage, testConfig } from '../../helpers/pipeline-worker';
import { temporaryDirectory } from '../../helpers/temp-dir';

const TOKEN = 'manifest-upload-token-0123456789';
const HEADER = 'subjectId,gender,styles,selfies,mainImage';

/**
 * Manifest uploads refused while they are read: these answers come before anything reaches
 * Temporal, so the API runs here without it (a client that is never called).
 */
describe('POST /v1/campaigns with a multipart manifest past the limits', () => {
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    const root = temporaryDirectory('manifest-upload-');
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

  async function upload(manifest: string, fields: Record<string, string> = {}) {
    const form = new FormData();
    form.set('manifest', new Blob([manifest], { type: 'text/csv' }), 'people.csv');
    // Fields after the file: they arrive only if the unread rest of the file was drained.
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    const res = await fetch(`${base}/v1/campaigns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: form,
    });
    return {
      status: res.status,
      body: (await res.json()) as { error: string; issues: { path: string; message: string }[] },
    };
  }

  test('a file of stray-quote lines: the first 100 unreadable rows by line, then reading stopped', async () => {
    const lines = Array.from({ length: 5_000 }, () => 'x"1,1,3,/a,');
    const { status, body } = await upload([HEADER, ...lines].join('\n'));
    expect(status).toBe(422);
    expect(body.error).toMatch(/101 problem\(s\)/);
    expect(body.issues[0]).toEqual({
      path: 'manifest.1',
      message:
        'line 1: has 100 rows that cannot be read; reading stopped at line 101, the rest was not checked',
    });
    expect(body.issues[1]).toEqual({
      path: 'manifest.2',
      message: 'line 2: a quote inside the unquoted field 1',
    });
  });

  test('a row of 20,000 selfies is refused as one long row; the next row is still read', async () => {
    const { status, body } = await upload(
      [HEADER, `u1,1,3,${'/missing/a.jpg;'.repeat(20_000)},`, 'u2,1,3,relative.jpg,'].join('\n'),
    );
    expect(status).toBe(422);
    expect(body.issues).toEqual([
      { path: 'manifest.2', message: 'line 2: is longer than the limit of 65536 bytes for one row' },
      { path: 'manifest.3.selfies.0', message: expect.stringMatching(/^line 3 \(u2\): selfies\.0 /) },
    ]);
  });

  test('reading stops at the row limit, and the fields sent after the file still arrive', async () => {
    const rows = Array.from({ length: 3 * MAX_MANIFEST_ROWS }, (_, i) => `u${i},1,3,/a.jpg,`);
    const refused = await upload([HEADER, ...rows].join('\n'));
    expect(refused.status).toBe(422);
    expect(refused.body.issues).toEqual([
      {
        path: 'manifest.1',
        message: `line 1: has more than ${MAX_MANIFEST_ROWS} rows, the limit: split it into several campaigns`,
      },
    ]);
    const badField = await upload([HEADER, ...rows].join('\n'), { skipInvalid: 'maybe' });
    expect(badField.status).toBe(422);
    expect(badField.body.issues).toEqual([{ path: 'skipInvalid', message: 'must be true or false' }]);
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { createApiServer } from '../../../src/api/server';
import { subjectPrefix, uploadBatchPrefix } from '../../../src/storage';
import { tinyJpeg } from '../../fixtures/images';
import { fsStorage, testConfig } from '../../helpers/pipeline-worker';
import { temporaryDirectory } from '../../helpers/temp-dir';

const ACME = 'acme-token-0123456789abcdef';
const GLOBEX = 'globex-token-0123456789abcdef';

/**
 * Trust III, H1: the blob store lay inside IMAGE_ROOTS (as the shipped compose file had it), so a
 * tenant could name another tenant's stored selfies and avatars as its own selfies, and tell
 * from the answers which of them exist.
 */
describe('paths into the blob store, with the store inside an image root', () => {
  let app: FastifyInstance;
  let base: string;
  let root: string;
  let blobDir: string;
  const starts: unknown[] = [];

  beforeAll(async () => {
    root = temporaryDirectory('blob-store-paths-');
    blobDir = path.join(root, 'blobs');
    const put = (key: string) => {
      const file = path.join(blobDir, key);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, tinyJpeg());
    };
    put(`${uploadBatchPrefix('acme.run-1', 'b1')}selfie-1.jpg`);
    put(`${subjectPrefix('acme', 'u-1')}avatars/1/2/3.jpg`);
    const config = testConfig({ taskQueue: 'q', providerUrl: 'http://127.0.0.1:1', imageRoots: [root] });
    const refuseStart = async (...args: unknown[]) => {
      starts.push(args);
      throw new Error('nothing may start');
    };
    app = await createApiServer({
      config: {
        ...config,
        imageAccess: { ...config.imageAccess, excluded: [blobDir] },
        api: { ...config.api, tokens: [`acme:${ACME}`, `globex:${GLOBEX}`], blobDir },
        storage: fsStorage(blobDir),
        campaigns: { maxInFlight: 4 },
      },
      client: {
        workflow: { start: refuseStart, signalWithStart: refuseStart, execute: refuseStart },
      } as unknown as Client,
      provider: { listStyles: () => Promise.resolve([{ id: 3, name: 'Oil', ready: true }]) } as never,
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
  });

  const post = async (url: string, token: string, body: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json()) as { issues?: { path: string; message: string }[] },
    };
  };
  const campaign = (token: string, selfie: string) =>
    post('/v1/campaigns', token, {
      subjects: [{ subjectId: 'p-1', gender: 1, styles: [3], selfies: [selfie] }],
    });
  const pipeline = (token: string, image: string) =>
    post('/v1/pipelines', token, { images: [image], styles: [3], gender: 1 });

  test("globex naming acme's stored upload or subject folder is refused at campaign start, and nothing starts", async () => {
    const uploads = path.join(blobDir, uploadBatchPrefix('acme.run-1', 'b1'));
    const subject = path.join(blobDir, subjectPrefix('acme', 'u-1'), 'avatars', '1', '2');
    for (const selfie of [uploads, path.join(uploads, 'selfie-1.jpg'), subject, blobDir]) {
      const answer = await campaign(GLOBEX, selfie);
      expect(answer.status).toBe(422);
      expect(answer.body.issues).toEqual([
        {
          path: 'subjects.0.selfies.0',
          message: expect.stringContaining('is outside the allowed image directories (IMAGE_ROOTS)'),
        },
      ]);
    }
    expect(starts).toEqual([]);
  });

  test("globex naming acme's stored upload is refused at pipeline start, and nothing starts", async () => {
    const selfie = path.join(blobDir, uploadBatchPrefix('acme.run-1', 'b1'), 'selfie-1.jpg');
    const answer = await pipeline(GLOBEX, selfie);
    expect(answer.status).toBe(422);
    expect(answer.body.issues).toEqual([
      { path: 'images.0', message: 'is outside the allowed image directories (IMAGE_ROOTS)' },
    ]);
    expect(starts).toEqual([]);
  });

  test("the answer for another tenant's subject folder is the answer for one that does not exist", async () => {
    const stored = path.join(blobDir, subjectPrefix('acme', 'u-1'));
    const absent = path.join(blobDir, subjectPrefix('acme', 'nobody'));
    const answers = await Promise.all([campaign(GLOBEX, stored), campaign(GLOBEX, absent)]);
    const text = (answer: (typeof answers)[number]) => JSON.stringify(answer).split(stored).join('<folder>');
    expect(text(answers[0])).toBe(JSON.stringify(answers[1]).split(absent).join('<folder>'));
    const files = await Promise.all([
      pipeline(GLOBEX, path.join(stored, 'avatars/1/2/3.jpg')),
      pipeline(GLOBEX, path.join(absent, 'avatars/1/2/3.jpg')),
    ]);
    expect(files[0]).toEqual(files[1]);
    expect(starts).toEqual([]);
  });
});

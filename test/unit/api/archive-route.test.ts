import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { registerArchiveRoute } from '../../../src/api/routes/archive';
import { BlobLinkSigner, FsBlobStore } from '../../../src/storage';
import { tinyPng } from '../../fixtures/images';

const root = mkdtempSync(path.join(tmpdir(), 'archive-route-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('GET /archive/{token} (filesystem store links)', () => {
  const store = new FsBlobStore(root);
  const signer = new BlobLinkSigner('link secret for the tests');
  const app = Fastify();
  registerArchiveRoute(app, store, signer);
  let base: string;
  beforeAll(async () => {
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());
  const get = (token: string) => fetch(`${base}/archive/${token}`);

  it('serves the object a valid token names, and 404 for expired, forged or erased ones', async () => {
    const png = tinyPng(5, 5);
    await store.put('subjects/abc/avatars/1/2/3.png', png, 'image/png');
    const token = signer.sign('subjects/abc/avatars/1/2/3.png', Date.now() + 60_000);
    const ok = await get(token);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await ok.arrayBuffer()).equals(png)).toBe(true);

    const expired = signer.sign('subjects/abc/avatars/1/2/3.png', Date.now() - 1_000);
    expect((await get(expired)).status).toBe(404);
    const forged = new BlobLinkSigner('another secret of enough length').sign(
      'subjects/abc/avatars/1/2/3.png',
      Date.now() + 60_000,
    );
    expect((await get(forged)).status).toBe(404);
    await store.delete('subjects/abc/avatars/1/2/3.png');
    expect((await get(token)).status).toBe(404);
  });
});

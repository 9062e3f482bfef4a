import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deletePrefix } from '../../src/storage';
import { S3BlobStore } from '@avatar-pipeline/client/storage/s3-blob-store';
import { describeBlobStoreContract } from '../helpers/blob-store-contract';
import { startS3TestServer, type S3TestServer } from '../helpers/s3-server';

/** A cold machine builds versitygw from the Go module proxy first. */
const INSTALL_TIMEOUT_MS = 20 * 60_000;

const dataDir = mkdtempSync(path.join(tmpdir(), 's3-blob-store-'));
let server: S3TestServer;

beforeAll(async () => {
  server = await startS3TestServer(dataDir);
  await server.createBucket('contract');
  await server.createBucket('avatars');
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describeBlobStoreContract(
  'S3 (versitygw)',
  () => new S3BlobStore({ bucket: 'contract', prefix: '' }, server.connection),
);

describe('S3 blob store', () => {
  let store: S3BlobStore;
  beforeAll(() => {
    store = new S3BlobStore({ bucket: 'avatars', prefix: 'team/' }, server.connection);
  });
  afterAll(() => store.close());

  it('keeps its objects under the prefix and references them as s3:// URLs', async () => {
    await store.put('a/1.png', Buffer.from('1'), 'image/png');
    expect(store.location).toBe('s3://avatars/team');
    expect(store.referenceOf('a/1.png')).toBe('s3://avatars/team/a/1.png');
    expect(store.keyOf('s3://avatars/team/a/1.png')).toBe('a/1.png');
    expect(store.keyOf('s3://avatars/other/a/1.png')).toBeUndefined();
    const outside = new S3BlobStore({ bucket: 'avatars', prefix: '' }, server.connection);
    try {
      expect((await outside.list('team/')).map((o) => o.key)).toEqual(['team/a/1.png']);
    } finally {
      outside.close();
    }
  });

  it('signs links that a plain HTTP client can open, and that stop working once expired', async () => {
    await store.put('signed/x.png', Buffer.from('signed bytes'), 'image/png');
    // The signature's date is whole seconds (X-Amz-Date), so a link signed for N seconds may
    // expire up to a second sooner than N after signing: 3 s leaves a slow machine time to open
    // it, and 4.5 s after signing it has surely expired.
    const url = await store.signedUrl('signed/x.png', 3);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/avatars\/team\/signed\/x\.png\?.*X-Amz-Signature=/);
    const ok = await fetch(url!);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('image/png');
    expect(await ok.text()).toBe('signed bytes');
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect((await fetch(url!)).status).toBe(403);
    const unsigned = url!.split('?')[0]!;
    expect((await fetch(unsigned)).status).toBe(403);
  }, 15_000);

  it('deletes a whole prefix', async () => {
    await store.put('erase/a.png', Buffer.from('a'), 'image/png');
    await store.put('erase/b/c.png', Buffer.from('c'), 'image/png');
    expect(await deletePrefix(store, 'erase/')).toEqual(['erase/a.png', 'erase/b/c.png']);
    expect(await store.list('erase/')).toEqual([]);
  });

  it('fails while the server is down and works again once it is back, with the data intact', async () => {
    await store.put('outage/kept.png', Buffer.from('kept'), 'image/png');
    await server.stop();
    try {
      await expect(store.put('outage/during.png', Buffer.from('x'), 'image/png')).rejects.toThrow();
    } finally {
      await server.restart();
    }
    expect(await store.head('outage/kept.png')).toMatchObject({ bytes: 4 });
    expect(await store.head('outage/during.png')).toBeUndefined();
    await store.put('outage/after.png', Buffer.from('after'), 'image/png');
    expect((await store.list('outage/')).map((o) => o.key)).toEqual(['outage/after.png', 'outage/kept.png']);
  }, 60_000);
});

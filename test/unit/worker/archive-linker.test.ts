import { BlobLinkSigner, type BlobStore } from '../../../src/storage';
import { archiveLinker } from '../../../src/worker/create-worker';

/** A filesystem store: it cannot presign, so links must come from the API. */
const fsStore = { signedUrl: async () => undefined } as unknown as BlobStore;
const SECRET = 'link-secret-of-the-api-0123456789';
const KEY = 'avatars/5e7c/9/10/1.png';

describe('links to archived avatars in webhook events', () => {
  test("a filesystem store's avatars get the API's own signed /archive/ link when the worker knows API_PUBLIC_URL and STORAGE_LINK_SECRET", async () => {
    const link = archiveLinker(
      { api: { publicUrl: 'https://avatars.example.com' }, storage: { linkSecret: SECRET } } as never,
      fsStore,
    );
    const url = await link(KEY);
    expect(url).toMatch(/^https:\/\/avatars\.example\.com\/archive\//);
    // The API verifies it with the same secret (src/api/routes/archive.ts).
    const token = url!.slice('https://avatars.example.com/archive/'.length);
    expect(new BlobLinkSigner(SECRET).verify(token)).toBe(KEY);
  });

  test('without the API address or the secret, a filesystem store gives no link (the event keeps archiveKey)', async () => {
    expect(await archiveLinker({ storage: { linkSecret: SECRET } } as never, fsStore)(KEY)).toBeUndefined();
    expect(
      await archiveLinker(
        { api: { publicUrl: 'https://avatars.example.com' }, storage: {} } as never,
        fsStore,
      )(KEY),
    ).toBeUndefined();
  });

  test('a store that presigns (S3) gives its own URL', async () => {
    const s3 = {
      signedUrl: async (key: string) => `https://s3.example.com/${key}?sig=1`,
    } as unknown as BlobStore;
    const link = archiveLinker(
      { api: { publicUrl: 'https://avatars.example.com' }, storage: { linkSecret: SECRET } } as never,
      s3,
    );
    expect(await link(KEY)).toBe(`https://s3.example.com/${KEY}?sig=1`);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  archiveAvatar,
  avatarAddressRules,
  AvatarRejectedError,
  AvatarSourceGoneError,
  FsBlobStore,
  subjectPrefix,
} from '../../../src/storage';
import { startTestHttpServer, type TestHttpServer } from '../../fixtures/http-test-server';
import { tinyJpeg, tinyPng } from '../../fixtures/images';

const root = mkdtempSync(path.join(tmpdir(), 'archive-avatar-'));
const store = new FsBlobStore(root);
const owner = subjectPrefix('default', 'subject-1');
let provider: TestHttpServer;
/** The test provider's own host (127.0.0.1) is trusted, as PROVIDER_BASE_URL's is. */
const rules = () => avatarAddressRules(provider.origin);

beforeAll(async () => {
  provider = await startTestHttpServer();
});
afterAll(async () => {
  await provider.close();
  rmSync(root, { recursive: true, force: true });
});

function serve(status: number, body: Buffer | string, contentType: string): void {
  provider.handle((_req, res) => res.writeHead(status, { 'content-type': contentType }).end(body));
}

describe('archiveAvatar', () => {
  it('copies the image under the provider ids and, asked again, finds it without downloading', async () => {
    const png = tinyPng(8, 8);
    serve(200, png, 'image/png');
    const ids = { modelId: 1, orderId: 2, avatarId: 3 };
    const first = await archiveAvatar(
      store,
      { owner, ids, sourceUrl: `${provider.origin}/a/3.png` },
      rules(),
    );
    expect(first).toMatchObject({
      key: `${owner}avatars/1/2/3.png`,
      bytes: png.length,
      alreadyArchived: false,
    });
    const requestsAfterFirst = provider.requests.length;

    serve(410, 'gone', 'text/plain'); // the provider has forgotten it since
    const second = await archiveAvatar(
      store,
      { owner, ids, sourceUrl: `${provider.origin}/a/3.png` },
      rules(),
    );
    expect(second).toMatchObject({
      key: first.key,
      bytes: png.length,
      contentType: 'image/png',
      alreadyArchived: true,
    });
    expect(provider.requests.length).toBe(requestsAfterFirst);
    expect(await store.list(`${owner}avatars/`)).toHaveLength(1);
  });

  it('names a JPEG by what its bytes are', async () => {
    serve(200, tinyJpeg(), 'image/jpeg');
    const archived = await archiveAvatar(
      store,
      {
        owner,
        ids: { modelId: 1, orderId: 2, avatarId: 4 },
        sourceUrl: `${provider.origin}/a/4`,
      },
      rules(),
    );
    expect(archived.key).toBe(`${owner}avatars/1/2/4.jpg`);
    expect(archived.contentType).toBe('image/jpeg');
  });

  it('reports an image the provider no longer serves as gone', async () => {
    serve(404, 'nope', 'text/plain');
    const attempt = archiveAvatar(
      store,
      {
        owner,
        ids: { modelId: 1, orderId: 2, avatarId: 5 },
        sourceUrl: `${provider.origin}/a/5.png`,
      },
      rules(),
    );
    await expect(attempt).rejects.toBeInstanceOf(AvatarSourceGoneError);
  });

  it('refuses what is not a PNG or JPEG, or larger than the limit, and stores nothing', async () => {
    const ids = { modelId: 1, orderId: 2, avatarId: 6 };
    const sourceUrl = `${provider.origin}/a/6.png`;
    serve(200, '<html>login</html>', 'text/html');
    await expect(archiveAvatar(store, { owner, ids, sourceUrl }, rules())).rejects.toThrow(/text\/html/);
    serve(200, Buffer.from('not really a png'), 'image/png');
    await expect(archiveAvatar(store, { owner, ids, sourceUrl }, rules())).rejects.toBeInstanceOf(
      AvatarRejectedError,
    );
    serve(200, tinyPng(64, 64), 'image/png');
    await expect(
      archiveAvatar(store, { owner, ids, sourceUrl }, rules(), { maxBytes: 100, timeoutMs: 5_000 }),
    ).rejects.toThrow(/more than the limit of 100/);
    expect((await store.list(`${owner}avatars/1/2/`)).map((o) => o.key)).not.toContain(
      `${owner}avatars/1/2/6.png`,
    );
  });

  it('leaves a server error to be retried (a plain error, not a refusal)', async () => {
    serve(503, 'busy', 'text/plain');
    const attempt = archiveAvatar(
      store,
      {
        owner,
        ids: { modelId: 1, orderId: 2, avatarId: 7 },
        sourceUrl: `${provider.origin}/a/7.png`,
      },
      rules(),
    );
    await expect(attempt).rejects.toThrow(/HTTP 503/);
    await expect(attempt).rejects.not.toBeInstanceOf(AvatarRejectedError);
  });
});

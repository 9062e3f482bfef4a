import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { linkArchivedAvatars, linkProgressAvatars } from '../../../src/api/archive-links';
import { BlobLinkSigner, deletePrefix, FsBlobStore, subjectPrefix } from '../../../src/storage';

const root = mkdtempSync(path.join(tmpdir(), 'archive-links-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('linkArchivedAvatars', () => {
  const store = new FsBlobStore(root);
  const signer = new BlobLinkSigner('link secret for the tests');
  const owner = subjectPrefix('default', 'subject-a');
  const result = {
    generations: [
      {
        avatars: [
          { avatarId: 1, imageUrl: 'http://provider/1.png', archiveKey: `${owner}avatars/9/10/1.png` },
          { avatarId: 2, imageUrl: 'http://provider/2.png' },
        ],
      },
    ],
  };

  it('links an archived avatar whose object exists, through a signed API token', async () => {
    await store.put(`${owner}avatars/9/10/1.png`, Buffer.from('png'), 'image/png');
    const now = Date.UTC(2026, 0, 1);
    const linked = await linkArchivedAvatars(result, store, signer, 'http://api.test', now);
    const [first, second] = linked.generations[0]!.avatars as Array<{ archivedUrl?: string }>;
    expect(first?.archivedUrl).toMatch(/^http:\/\/api\.test\/archive\/[^/]+$/);
    const token = first!.archivedUrl!.slice('http://api.test/archive/'.length);
    expect(signer.verify(token, now)).toBe(`${owner}avatars/9/10/1.png`);
    expect(second?.archivedUrl).toBeUndefined();
  });

  it('gives no link once the object is gone (the subject was erased)', async () => {
    await deletePrefix(store, owner);
    const linked = await linkArchivedAvatars(result, store, signer, 'http://api.test');
    expect(linked.generations[0]!.avatars.every((a) => !('archivedUrl' in a))).toBe(true);
  });
});

describe('linkProgressAvatars', () => {
  const store = new FsBlobStore(path.join(root, 'progress'));
  const signer = new BlobLinkSigner('link secret for the tests');
  const owner = subjectPrefix('default', 'subject-b');

  it('links the avatars of each done style, and leaves the styles still running as they are', async () => {
    const key = `${owner}avatars/9/11/5.png`;
    await store.put(key, Buffer.from('png'), 'image/png');
    const progress = {
      stage: 'generating',
      styles: [
        { styleId: 3, stage: 'done', avatars: [{ avatarId: 5, archiveKey: key }, { avatarId: 6 }] },
        { styleId: 5, stage: 'polling' },
      ],
    };
    const now = Date.UTC(2026, 0, 1);
    const linked = await linkProgressAvatars(progress, store, signer, 'http://api.test', now);
    const [archived, notArchived] = linked.styles[0]!.avatars as Array<{ archivedUrl?: string }>;
    expect(signer.verify(archived!.archivedUrl!.slice('http://api.test/archive/'.length), now)).toBe(key);
    expect(notArchived?.archivedUrl).toBeUndefined();
    expect(linked.styles[1]).toEqual({ styleId: 5, stage: 'polling' });
  });
});

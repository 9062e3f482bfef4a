import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BlobTooLargeError, deletePrefix, FsBlobStore, readBlob } from '../../../src/storage';
import { describeBlobStoreContract } from '../../helpers/blob-store-contract';

const root = mkdtempSync(path.join(tmpdir(), 'fs-blob-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describeBlobStoreContract('filesystem', () => new FsBlobStore(path.join(root, 'contract')));

describe('filesystem blob store', () => {
  const store = new FsBlobStore(path.join(root, 'own'));

  it('keeps objects as files named by their key, and references them by absolute path', async () => {
    await store.put('a/b/c.png', Buffer.from('x'), 'image/png');
    expect(store.referenceOf('a/b/c.png')).toBe(path.join(root, 'own', 'a', 'b', 'c.png'));
    expect(readdirSync(path.join(root, 'own', 'a', 'b'))).toEqual(['c.png']);
  });

  it('leaves no empty directories behind when a prefix is deleted', async () => {
    await store.put('gone/x/1.png', Buffer.from('1'), 'image/png');
    await store.put('gone/y/2.png', Buffer.from('2'), 'image/png');
    expect(await deletePrefix(store, 'gone/')).toEqual(['gone/x/1.png', 'gone/y/2.png']);
    expect(readdirSync(path.join(root, 'own'))).toEqual(['a']);
  });

  it('gives no signed links: the API serves filesystem objects itself', async () => {
    expect(await store.signedUrl()).toBeUndefined();
  });
});

describe('readBlob', () => {
  const store = new FsBlobStore(path.join(root, 'read'));

  it('reads an object whole, undefined for a missing one, and refuses one over the limit', async () => {
    await store.put('r/a.png', Buffer.from('0123456789'), 'image/png');
    expect((await readBlob(store, 'r/a.png', 10))?.toString()).toBe('0123456789');
    expect(await readBlob(store, 'r/missing.png', 10)).toBeUndefined();
    await expect(readBlob(store, 'r/a.png', 9)).rejects.toBeInstanceOf(BlobTooLargeError);
  });
});

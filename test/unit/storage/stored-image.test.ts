import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readStoredImage } from '../../../src/images/stored-image';
import type { BlobInfo, BlobStore, StoredBlob } from '../../../src/storage';
import { FsBlobStore, uploadFoldersOf } from '../../../src/storage';
import { InputError } from '@avatar-pipeline/client/errors';

const root = mkdtempSync(path.join(tmpdir(), 'stored-image-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The filesystem store answering to s3:// references, as an S3 store would. */
function asBucket(inner: FsBlobStore): BlobStore {
  const rootRef = 's3://selfies/team/';
  return {
    location: 's3://selfies/team',
    put: (key, body, type): Promise<BlobInfo> => inner.put(key, body, type),
    get: (key): Promise<StoredBlob | undefined> => inner.get(key),
    head: (key) => inner.head(key),
    delete: (key) => inner.delete(key),
    list: (prefix) => inner.list(prefix),
    listKeys: (prefix) => inner.listKeys(prefix),
    signedUrl: () => Promise.resolve(undefined),
    referenceOf: (key) => `${rootRef}${key}`,
    keyOf: (ref) => (ref.startsWith(rootRef) ? ref.slice(rootRef.length) : undefined),
    close: () => undefined,
  };
}

describe('readStoredImage', () => {
  const store = asBucket(new FsBlobStore(root));

  it('reads a selfie under the configured bucket and prefix', async () => {
    await store.put('s/a/selfie-1.jpg', Buffer.from('jpeg bytes'), 'image/jpeg');
    const bytes = await readStoredImage('s3://selfies/team/s/a/selfie-1.jpg', store, 1_000, 'images.0');
    expect(bytes.toString()).toBe('jpeg bytes');
  });

  it('names the field and the reason for anything else', async () => {
    const read = (ref: string, max = 1_000) => readStoredImage(ref, store, max, 'images.0');
    await expect(read('s3://other-bucket/team/s/a/selfie-1.jpg')).rejects.toThrow(
      /images\.0.*not under the configured storage/,
    );
    await expect(read('s3://selfies/team/s/a/missing.jpg')).rejects.toThrow(/was not found/);
    await expect(read('s3://selfies/team/s/a/selfie-1.jpg', 5)).rejects.toThrow(
      /is 10 bytes, more than the limit of 5 bytes/,
    );
    await expect(readStoredImage('s3://selfies/team/x.jpg', undefined, 5, 'images.0')).rejects.toBeInstanceOf(
      InputError,
    );
  });
});

describe('uploaded selfies are read only by their own run', () => {
  const store = new FsBlobStore(root);
  const own = 'acme.avatar-pipeline-7f9c2d4e-1b3a-4c5d-8e6f-0a1b2c3d4e5f';
  const other = 'globex.avatar-pipeline-0c1d2e3f-4a5b-4c6d-9e8f-7a6b5c4d3e2f';

  it('reads a selfie uploaded for the reading run, and refuses one uploaded for another', async () => {
    await store.put(`uploads/${own}/b1/selfie-1.jpg`, Buffer.from('own'), 'image/jpeg');
    await store.put(`uploads/${other}/b2/selfie-1.jpg`, Buffer.from('theirs'), 'image/jpeg');
    const read = (ref: string) => readStoredImage(ref, store, 1_000, 'images[0]', own);
    expect((await read(`blob:uploads/${own}/b1/selfie-1.jpg`)).toString()).toBe('own');
    await expect(read(`blob:uploads/${other}/b2/selfie-1.jpg`)).rejects.toThrow(
      'Invalid images[0]: names a selfie uploaded for another run',
    );
    // A run id that is the start of another's names none of its uploads.
    await expect(
      readStoredImage(`blob:uploads/${own}/b1/selfie-1.jpg`, store, 1_000, 'images[0]', own.slice(0, -1)),
    ).rejects.toThrow('another run');
  });

  it('finds the upload folders of the run only', () => {
    expect(
      uploadFoldersOf(own, [
        `blob:uploads/${own}/b1/selfie-1.jpg`,
        `blob:uploads/${own}/b1/selfie-2.jpg`,
        `blob:uploads/${other}/b2/selfie-1.jpg`,
        '/srv/selfies/a.jpg',
        'https://images.example/a.jpg',
      ]),
    ).toEqual([`uploads/${own}/b1/`]);
  });
});

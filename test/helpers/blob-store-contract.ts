import { text } from 'node:stream/consumers';
import type { BlobStore } from '../../src/storage';

/**
 * What every backend must do, run against each of them: the filesystem in the unit tier, a real
 * S3-compatible server in the storage tier.
 */
export function describeBlobStoreContract(name: string, open: () => BlobStore): void {
  describe(`${name}: the blob store contract`, () => {
    let store: BlobStore;
    beforeAll(() => {
      store = open();
    });
    afterAll(() => store.close());

    it('puts, heads, gets and deletes one object', async () => {
      const key = 'contract/one/a.png';
      const written = await store.put(key, Buffer.from('png bytes'), 'image/png');
      expect(written).toEqual({ key, bytes: 9, contentType: 'image/png' });
      expect(await store.head(key)).toEqual({ key, bytes: 9, contentType: 'image/png' });
      const got = await store.get(key);
      expect(got?.info.bytes).toBe(9);
      expect(got?.info.contentType).toBe('image/png');
      expect(await text(got!.body)).toBe('png bytes');
      await store.delete(key);
      expect(await store.head(key)).toBeUndefined();
      expect(await store.get(key)).toBeUndefined();
    });

    it('replaces on a second put of the same key: one object, the newest bytes', async () => {
      const key = 'contract/twice/x.jpg';
      await store.put(key, Buffer.from('first'), 'image/jpeg');
      await store.put(key, Buffer.from('second!'), 'image/jpeg');
      const listed = await store.list('contract/twice/');
      expect(listed.map((o) => [o.key, o.bytes])).toEqual([[key, 7]]);
      expect(await text((await store.get(key))!.body)).toBe('second!');
    });

    it('deletes idempotently: a missing key is no error', async () => {
      await expect(store.delete('contract/never/was.png')).resolves.toBeUndefined();
    });

    it('lists by prefix, in key order, and nothing outside it', async () => {
      await store.put('contract/list/b/2.png', Buffer.from('22'), 'image/png');
      await store.put('contract/list/a/1.png', Buffer.from('1'), 'image/png');
      await store.put('contract/lister/3.png', Buffer.from('333'), 'image/png');
      const listed = await store.list('contract/list/');
      expect(listed.map((o) => [o.key, o.bytes])).toEqual([
        ['contract/list/a/1.png', 1],
        ['contract/list/b/2.png', 2],
      ]);
      expect(await store.list('contract/nothing-here/')).toEqual([]);
      expect(await store.listKeys('contract/list/')).toEqual([
        'contract/list/a/1.png',
        'contract/list/b/2.png',
      ]);
      expect(await store.listKeys('contract/nothing-here/')).toEqual([]);
    });

    it('resolves its own references back to keys and refuses others', () => {
      const key = 'contract/ref/r.png';
      expect(store.keyOf(store.referenceOf(key))).toBe(key);
      expect(store.keyOf('/etc/passwd')).toBeUndefined();
      expect(store.keyOf('s3://some-other-bucket/contract/ref/r.png')).toBeUndefined();
    });

    it('refuses keys that could escape the store', async () => {
      await expect(store.put('../escape.png', Buffer.from('x'), 'image/png')).rejects.toThrow(
        /invalid blob key/,
      );
      await expect(store.put('a//b.png', Buffer.from('x'), 'image/png')).rejects.toThrow(/invalid blob key/);
      await expect(store.list('no-trailing-slash')).rejects.toThrow(/invalid blob key prefix/);
      await expect(store.listKeys('no-trailing-slash')).rejects.toThrow(/invalid blob key prefix/);
    });
  });
}

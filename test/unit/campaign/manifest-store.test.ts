import { text } from 'node:stream/consumers';
import {
  CampaignManifestError,
  campaignSubjectIds,
  eraseFromCampaignManifests,
  MANIFESTS_PREFIX,
  readCampaignSubjects,
  readCampaignSubjectsAt,
  storeCampaignManifest,
} from '@avatar-pipeline/client/campaign/manifest-store';
import { ERASED_SUBJECT, type CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import type { BlobStore } from '@avatar-pipeline/client/storage/blob-store';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
import { temporaryDirectory } from '../../helpers/temp-dir';

const person = (subjectId: string, row: number): CampaignSubject => ({
  subjectId,
  gender: 1,
  styles: [3],
  images: [`/selfies/${subjectId}.png`],
  mainImageIndex: 0,
  row,
});
const people = ['ana', 'ben', 'cy'].map((id, i) => person(id, i + 2));
const ofTenant = (tenant: string) => (campaignId: string) => campaignId.startsWith(`${tenant}.`);

/** Every object's text in the store, by key. */
async function contents(store: BlobStore): Promise<Map<string, string>> {
  const all = new Map<string, string>();
  for (const key of await store.listKeys(MANIFESTS_PREFIX)) {
    all.set(key, await text((await store.get(key))!.body));
  }
  return all;
}

describe('campaign manifests in the blob store', () => {
  let store: FsBlobStore;
  beforeEach(() => {
    store = new FsBlobStore(temporaryDirectory('manifest-store-'));
  });

  it('stores the subjects under the campaign, and the workers read them back by page', async () => {
    const ref = await storeCampaignManifest(store, 'acme.spring', people);
    expect(ref).toEqual({
      key: expect.stringMatching(/^campaigns\/acme\.spring-[0-9a-f]{12}\/manifest\.json$/),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      total: 3,
    });
    expect(await readCampaignSubjects(ref, store, 1, 5)).toEqual(people.slice(1));
    expect(await readCampaignSubjectsAt(ref, store, [2, 0, 7])).toEqual([people[2], people[0], undefined]);
    expect(await campaignSubjectIds(ref, store)).toEqual(new Set(['ana', 'ben', 'cy']));
  });

  it('storing the same subjects again answers the same reference; other subjects under the id are refused', async () => {
    const ref = await storeCampaignManifest(store, 'acme.spring', people);
    expect(await storeCampaignManifest(store, 'acme.spring', people)).toEqual(ref);
    const refused = await storeCampaignManifest(store, 'acme.spring', people.slice(1)).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(CampaignManifestError);
    expect(refused).toMatchObject({
      permanent: true,
      message: expect.stringContaining('choose another campaign id'),
    });
  });

  it('erasure replaces the person with a placeholder in a new version and deletes the version that named them', async () => {
    const ref = await storeCampaignManifest(store, 'acme.spring', people);
    // Warm the workers' cache: the erased version must not be served from it afterwards.
    expect(await readCampaignSubjects(ref, store, 0, 3)).toEqual(people);

    const erasures = await eraseFromCampaignManifests(store, 'ben', ofTenant('acme'));
    expect(erasures).toEqual([{ campaignId: 'acme.spring', indexes: [1], workflowKeys: ['ben'] }]);

    expect(await readCampaignSubjects(ref, store, 0, 3)).toEqual([people[0], ERASED_SUBJECT, people[2]]);
    expect(await campaignSubjectIds(ref, store)).toEqual(new Set(['ana', 'cy']));
    const stored = await contents(store);
    expect(stored.size).toBe(2);
    for (const [key, body] of stored)
      expect({ key, named: body.includes('ben') }).toEqual({ key, named: false });
    // A second erasure finds nothing more to do.
    expect(await eraseFromCampaignManifests(store, 'ben', ofTenant('acme'))).toEqual([]);
  });

  it("erasure touches only the tenant's campaigns: another tenant's subject of the same id is another person", async () => {
    const acme = await storeCampaignManifest(store, 'acme.spring', people);
    const globex = await storeCampaignManifest(store, 'globex.spring', people);
    await eraseFromCampaignManifests(store, 'ana', ofTenant('globex'));
    expect(await readCampaignSubjects(acme, store, 0, 1)).toEqual([people[0]]);
    expect(await readCampaignSubjects(globex, store, 0, 1)).toEqual([ERASED_SUBJECT]);
  });

  /** The store, with `hook` run after each read of a manifest record: to put an erasure between a reader's reads. */
  function withHook(hook: (read: number) => Promise<void>): BlobStore {
    let reads = 0;
    return Object.create(store, {
      get: {
        value: async (key: string) => {
          const blob = await store.get(key);
          if (key.endsWith('/manifest.json')) await hook(++reads);
          return blob;
        },
      },
    }) as BlobStore;
  }

  it('a reader caught between an erasure and its delete reads the record again, and gets the new version', async () => {
    const ref = await storeCampaignManifest(store, 'acme.spring', people);
    // The reader reads the record; the erasure runs to its end; the version the record named is gone.
    const racing = withHook(async (read) => {
      if (read === 1) await eraseFromCampaignManifests(store, 'cy', ofTenant('acme'));
    });
    expect(await readCampaignSubjects(ref, racing, 0, 3)).toEqual([people[0], people[1], ERASED_SUBJECT]);
  });

  it('a reader that loses the version twice is told to retry, and the retry reads the latest', async () => {
    const ref = await storeCampaignManifest(store, 'acme.spring', people);
    const racing = withHook(async (read) => {
      if (read === 1) await eraseFromCampaignManifests(store, 'cy', ofTenant('acme'));
      if (read === 2) await eraseFromCampaignManifests(store, 'ana', ofTenant('acme'));
    });
    const caught = await readCampaignSubjects(ref, racing, 0, 3).catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(CampaignManifestError);
    expect(caught).toMatchObject({ permanent: false, message: expect.stringContaining('is gone') });
    expect(await readCampaignSubjects(ref, racing, 0, 3)).toEqual([
      ERASED_SUBJECT,
      people[1],
      ERASED_SUBJECT,
    ]);
  });

  it('two erasures at once through one store both hold: neither writes its version from the same one', async () => {
    const ref = await storeCampaignManifest(store, 'acme.spring', people);
    await Promise.all([
      eraseFromCampaignManifests(store, 'ana', ofTenant('acme')),
      eraseFromCampaignManifests(store, 'cy', ofTenant('acme')),
    ]);
    expect(await readCampaignSubjects(ref, store, 0, 3)).toEqual([ERASED_SUBJECT, people[1], ERASED_SUBJECT]);
    expect((await contents(store)).size).toBe(2);
  });

  it('an erasure that stopped before deleting the old version is completed by repeating it', async () => {
    const ref = await storeCampaignManifest(store, 'acme.spring', people);
    const original = await contents(store);
    await eraseFromCampaignManifests(store, 'ben', ofTenant('acme'));
    // As if the erasure had stopped after moving the record: the version naming ben is still there.
    for (const [key, body] of original) {
      if (key.endsWith('.jsonl')) await store.put(key, Buffer.from(body), 'application/x-ndjson');
    }
    expect([...(await contents(store)).values()].some((body) => body.includes('ben'))).toBe(true);
    expect(await eraseFromCampaignManifests(store, 'ben', ofTenant('acme'))).toEqual([]);
    const left = await contents(store);
    expect(left.size).toBe(2);
    expect([...left.values()].some((body) => body.includes('ben'))).toBe(false);
    expect(await readCampaignSubjects(ref, store, 0, 3)).toEqual([people[0], ERASED_SUBJECT, people[2]]);
  });

  it('a start repeated after an erasure answers the campaign and does not bring the person back', async () => {
    const ref = await storeCampaignManifest(store, 'acme.spring', people);
    await eraseFromCampaignManifests(store, 'ben', ofTenant('acme'));
    expect(await storeCampaignManifest(store, 'acme.spring', people)).toEqual(ref);
    expect([...(await contents(store)).values()].some((body) => body.includes('ben'))).toBe(false);
  });

  it('refuses, for good, a manifest changed behind the campaign and a reference from the folder-based release', async () => {
    const ref = await storeCampaignManifest(store, 'acme.spring', people);
    const other = { ...ref, sha256: '0'.repeat(64) };
    await expect(readCampaignSubjects(other, store, 0, 1)).rejects.toMatchObject({
      permanent: true,
      message: expect.stringContaining('changed after the campaign started'),
    });
    const folderRef = { path: '/data/campaigns/acme.spring.subjects.jsonl', sha256: ref.sha256, total: 3 };
    await expect(readCampaignSubjects(folderRef as unknown as typeof ref, store, 0, 1)).rejects.toMatchObject(
      { permanent: true, message: expect.stringContaining('not a blob store key') },
    );
  });

  it('a missing manifest is worth retrying: the store may be catching up, or misconfigured (the message says which setting)', async () => {
    const ref = await storeCampaignManifest(store, 'acme.spring', people);
    const elsewhere = new FsBlobStore(temporaryDirectory('manifest-store-other-'));
    await expect(readCampaignSubjects(ref, elsewhere, 0, 1)).rejects.toMatchObject({
      permanent: false,
      message: expect.stringContaining('STORAGE_URL'),
    });
  });
});

import { createHash } from 'node:crypto';
import { InputError } from '@avatar-pipeline/client';
import {
  checkSelfieBytes,
  referencesOnly,
  storeSelfieBytes,
} from '@avatar-pipeline/client/client/selfie-bytes';
import { memoryStore } from '../../helpers/memory-selfie-store';
import { UPLOAD_CLAIM_NAME, uploadsPrefix } from '@avatar-pipeline/client/storage/blob-keys';
import { blobReference } from '@avatar-pipeline/client/storage/blob-reference';
import { syntheticSelfiePng } from '../../../src/samples/synthetic-selfie';

function refusal(run: () => unknown): { path: string; message: string }[] {
  try {
    run();
  } catch (err) {
    if (err instanceof InputError) return err.issues;
    throw err;
  }
  throw new Error('not refused');
}

const selfie = syntheticSelfiePng(1, 64);

describe('selfies handed over as bytes', () => {
  test('a request with bytes among its selfies is told apart from one of references only', () => {
    expect(referencesOnly({ images: ['/data/a.png'], styles: [3], gender: 1 })).toBe(true);
    expect(referencesOnly({ images: ['/data/a.png', selfie], styles: [3], gender: 1 })).toBe(false);
    expect(referencesOnly({ images: [new Uint8Array(selfie)], styles: [3], gender: 1 })).toBe(false);
  });

  test('bytes without a selfie store are refused by field, naming the setting that takes them', () => {
    expect(refusal(() => checkSelfieBytes(['/data/a.png', selfie], undefined))).toEqual([
      { path: 'images.1', message: expect.stringContaining('selfieStore: openSelfieStore()') },
    ]);
  });

  test('every selfie that is not a whole JPEG or PNG is named at once', () => {
    const truncated = selfie.subarray(0, selfie.length - 20);
    const issues = refusal(() =>
      checkSelfieBytes([Buffer.from('not an image'), selfie, truncated], memoryStore()),
    );
    expect(issues.map((issue) => issue.path)).toEqual(['images.0', 'images.2']);
    expect(issues[0]!.message).toBe('is not a JPEG or PNG');
  });

  test('checked bytes keep their format and hash; paths are left to the file check', () => {
    const checked = checkSelfieBytes(['/data/a.png', new Uint8Array(selfie)], memoryStore());
    expect([...checked.keys()]).toEqual([1]);
    expect(checked.get(1)).toMatchObject({
      format: 'png',
      sha256: createHash('sha256').update(selfie).digest('hex'),
    });
  });

  test("they are stored under the run's own upload folder, claim first, and answered as references", async () => {
    const store = memoryStore();
    const images = ['/data/a.png', selfie];
    const workflowId = 'default.avatar-pipeline-order-8812';
    const { images: stored, batch } = await storeSelfieBytes(
      store,
      workflowId,
      images,
      checkSelfieBytes(images, store),
    );
    const keys = [...store.objects.keys()];
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key.startsWith(uploadsPrefix(workflowId))).toBe(true);
    expect(keys[0]!.endsWith(`/${UPLOAD_CLAIM_NAME}`)).toBe(true);
    expect(stored[0]).toBe('/data/a.png');
    expect(stored[1]).toBe(blobReference(keys[1]!));
    expect(store.objects.get(keys[1]!)).toEqual(selfie);

    await batch.discard();
    expect(store.objects.size).toBe(0);
  });
});

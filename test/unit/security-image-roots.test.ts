import { randomUUID } from 'node:crypto';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expandSelfies } from '../../src/campaign/manifest/selfie-files';
import { resolveImageReference, type ImageAccessPolicy } from '../../src/images/image-access';
import { tinyPng } from '../fixtures/images';
import { InputError } from '@avatar-pipeline/client/errors';

/*
 * Outside IMAGE_ROOTS every reference gets the same answer, whether it exists,
 * is a folder, holds images or is an image; nothing outside is listed or read.
 */
// Fixed names, so the cases can be listed before the files are made.
const base = join(tmpdir(), `roots-oracle-${process.pid}-${randomUUID()}`);
const root = join(base, 'root');
const outside = join(base, 'outside');
const policy: ImageAccessPolicy = { roots: [root], urlHosts: [] };

beforeAll(async () => {
  await mkdir(join(root, 'alice'), { recursive: true });
  await mkdir(join(outside, 'photos'), { recursive: true });
  await mkdir(join(outside, 'empty'), { recursive: true });
  await writeFile(join(root, 'alice', 'one.png'), tinyPng());
  await writeFile(join(outside, 'photos', 'private-name.png'), tinyPng());
  await writeFile(join(outside, 'notes.txt'), 'not an image');
  await writeFile(
    join(outside, 'damaged.png'),
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]),
  );
  await symlink(join(outside, 'photos'), join(root, 'linked-photos'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

const OUTSIDE_PATHS = () => [
  join(outside, 'photos', 'private-name.png'), // an image
  join(outside, 'missing.png'), // nothing
  join(outside, 'notes.txt'), // not an image
  join(outside, 'damaged.png'), // a damaged image
  join(outside, 'photos'), // a folder of images
  join(outside, 'empty'), // an empty folder
  join(outside, 'nowhere', 'deeper'), // a missing folder
  join(root, '..', 'outside', 'photos'), // traversal
  join(root, 'linked-photos'), // a symlink out of the root
];

describe('manifest selfie checks', () => {
  it('give one message for every path outside the roots, naming no file found there', async () => {
    const paths = OUTSIDE_PATHS();
    const { images, problems } = await expandSelfies(paths, { imageAccess: policy });
    expect(images).toEqual([]);
    expect(problems).toHaveLength(paths.length);
    for (const [entry, path] of paths.entries()) {
      expect(problems[entry]).toEqual({
        entry,
        message: `${path} is outside the allowed image directories (IMAGE_ROOTS)`,
      });
    }
    // Exactly one problem per entry: a folder outside is not listed, so its files go unnamed.
  });

  it('still explain problems inside the roots', async () => {
    const { problems } = await expandSelfies([join(root, 'missing.png'), join(root, 'alice')], {
      imageAccess: policy,
    });
    expect(problems).toEqual([{ entry: 0, message: `${join(root, 'missing.png')} does not exist` }]);
  });
});

describe('pipeline requests (image references)', () => {
  it.each(OUTSIDE_PATHS().map((p) => [p]))('%s: outside, whatever is there', async (path) => {
    const err: unknown = await resolveImageReference(path, policy, 'images.0').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues[0]?.message).toBe(
      'is outside the allowed image directories (IMAGE_ROOTS)',
    );
  });
});

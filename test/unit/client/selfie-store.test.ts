import path from 'node:path';
import { ConfigError } from '@avatar-pipeline/client';
import { openSelfieStore } from '@avatar-pipeline/client/selfie-store';
import { temporaryDirectory } from '../../helpers/temp-dir';

function refusal(env: NodeJS.ProcessEnv): ConfigError {
  try {
    openSelfieStore(env).close();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('the selfie store an app opens for selfies as bytes', () => {
  test('is the directory of BLOB_DIR, or of a directory STORAGE_URL, as the workers have it', () => {
    const dir = temporaryDirectory('selfie-store-');
    const fromBlobDir = openSelfieStore({ BLOB_DIR: dir });
    const fromUrl = openSelfieStore({ STORAGE_URL: dir, BLOB_DIR: path.join(dir, 'unused') });
    expect([fromBlobDir.location, fromUrl.location]).toEqual([dir, dir]);
    fromBlobDir.close();
    fromUrl.close();
  });

  test('carries the retention policy: the run deletes its selfies once trained, unless told otherwise', () => {
    const dir = temporaryDirectory('selfie-store-');
    const byDefault = openSelfieStore({ BLOB_DIR: dir });
    const kept = openSelfieStore({ BLOB_DIR: dir, SELFIE_RETENTION: '7d' });
    expect([byDefault.deleteUploadsAfterTraining, kept.deleteUploadsAfterTraining]).toEqual([true, false]);
    byDefault.close();
    kept.close();
  });

  test('a bad storage setting is a ConfigError naming the variable', () => {
    expect(refusal({ STORAGE_URL: 's3://' }).issues.map((issue) => issue.path)).toEqual(['STORAGE_URL']);
    expect(
      refusal({ STORAGE_URL: 's3://bucket/selfies', AWS_ACCESS_KEY_ID: 'AKIA0000' }).issues.map(
        (i) => i.path,
      ),
    ).toEqual(['AWS_SECRET_ACCESS_KEY']);
    expect(refusal({ SELFIE_RETENTION: 'forever' }).issues.map((issue) => issue.path)).toEqual([
      'SELFIE_RETENTION',
    ]);
  });
});

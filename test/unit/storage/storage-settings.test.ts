import path from 'node:path';
import { StorageSettingsError, storageSettingsFromEnv } from '../../../src/storage';

describe('storage settings', () => {
  it('defaults to the filesystem directory it is given', () => {
    const settings = storageSettingsFromEnv({}, '.blobs', '/srv/app');
    expect(settings.target).toEqual({ kind: 'fs', dir: path.resolve('/srv/app', '.blobs') });
  });

  it('reads s3://bucket/prefix and the AWS variables', () => {
    const settings = storageSettingsFromEnv(
      {
        STORAGE_URL: 's3://avatars-prod/team/a/',
        AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000',
        AWS_ENDPOINT_URL: 'http://ignored:1',
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'id',
        AWS_SECRET_ACCESS_KEY: 'secret',
      },
      '.blobs',
    );
    expect(settings.target).toEqual({ kind: 's3', bucket: 'avatars-prod', prefix: 'team/a/' });
    expect(settings.s3).toEqual({
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      forcePathStyle: true,
    });
  });

  it('leaves credentials to the SDK chain and uses AWS itself without an endpoint', () => {
    const settings = storageSettingsFromEnv({ STORAGE_URL: 's3://bucket' }, '.blobs');
    expect(settings.target).toEqual({ kind: 's3', bucket: 'bucket', prefix: '' });
    expect(settings.s3).toEqual({
      endpoint: undefined,
      region: 'us-east-1',
      credentials: undefined,
      forcePathStyle: false,
    });
  });

  it('names every bad variable and why', () => {
    let caught: unknown;
    try {
      storageSettingsFromEnv(
        {
          STORAGE_URL: 's3://Bad_Bucket/x',
          AWS_ACCESS_KEY_ID: 'only-the-id',
          AWS_ENDPOINT_URL_S3: 'not a url',
        },
        '.blobs',
      );
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StorageSettingsError);
    const variables = (caught as StorageSettingsError).issues.map((issue) => issue.variable).sort();
    expect(variables).toEqual(['AWS_ENDPOINT_URL_S3', 'AWS_SECRET_ACCESS_KEY', 'STORAGE_URL']);
  });

  it('refuses other URL schemes', () => {
    expect(() => storageSettingsFromEnv({ STORAGE_URL: 'gs://bucket/x' }, '.blobs')).toThrow(/STORAGE_URL/);
  });
});

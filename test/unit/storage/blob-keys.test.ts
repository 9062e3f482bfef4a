import {
  avatarKey,
  keySegment,
  ownerPrefix,
  selfieUploadKey,
  subjectPrefix,
  uploadBatchPrefix,
} from '../../../src/storage';

describe('blob keys', () => {
  it('puts a subject under a hash of its id, never the id itself', () => {
    const prefix = subjectPrefix('acme', 'jane.doe@example.com');
    expect(prefix).toMatch(/^subjects\/[0-9a-f]{32}\/$/);
    expect(prefix).not.toContain('jane');
    expect(subjectPrefix('acme', 'jane.doe@example.com')).toBe(prefix);
    expect(subjectPrefix('acme', 'john')).not.toBe(prefix);
  });

  it('keeps two tenants\u2019 subjects of one id apart, and no tenant/id split makes another\u2019s key', () => {
    expect(subjectPrefix('tenant-a', 'u-1')).not.toBe(subjectPrefix('tenant-b', 'u-1'));
    // A dash may sit in the tenant id or in the subject id: the two are still two people.
    expect(subjectPrefix('a-b', 'c')).not.toBe(subjectPrefix('a', 'b-c'));
    expect(ownerPrefix({ tenant: 'tenant-a', subjectId: 'u-1', pipelineId: 'p' })).toBe(
      subjectPrefix('tenant-a', 'u-1'),
    );
  });

  it('keys avatars by the provider ids, so a second copy of one avatar has the same key', () => {
    const owner = ownerPrefix({ tenant: 'default', subjectId: 's-1', pipelineId: 'p-1' });
    const ids = { modelId: 1001, orderId: 1002, avatarId: 7 };
    expect(avatarKey(owner, ids, 'png')).toBe(`${owner}avatars/1001/1002/7.png`);
    expect(avatarKey(owner, { ...ids }, 'png')).toBe(avatarKey(owner, ids, 'png'));
  });

  it('keeps runs without a subject under their pipeline id', () => {
    expect(ownerPrefix({ tenant: 'default', subjectId: undefined, pipelineId: 'avatar-pipeline-42' })).toBe(
      'pipelines/avatar-pipeline-42/',
    );
    const batch = uploadBatchPrefix('avatar-pipeline-42', 'b1');
    expect(batch).toBe('uploads/avatar-pipeline-42/b1/');
    expect(selfieUploadKey(batch, 0, 'jpg')).toBe('uploads/avatar-pipeline-42/b1/selfie-1.jpg');
  });

  it('turns ids outside the key alphabet into distinct hashed segments', () => {
    expect(keySegment('a/b')).toMatch(/^h-[0-9a-f]{32}$/);
    expect(keySegment('a/b')).not.toBe(keySegment('a_b'));
    expect(keySegment('..')).toMatch(/^h-/);
    expect(keySegment('plain-id_1.2')).toBe('plain-id_1.2');
  });
});

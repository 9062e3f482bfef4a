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
    const prefix = subjectPrefix('jane.doe@example.com');
    expect(prefix).toMatch(/^subjects\/[0-9a-f]{32}\/$/);
    expect(prefix).not.toContain('jane');
    expect(subjectPrefix('jane.doe@example.com')).toBe(prefix);
    expect(subjectPrefix('john')).not.toBe(prefix);
  });

  it('keys avatars by the provider ids, so a second copy of one avatar has the same key', () => {
    const owner = ownerPrefix({ subjectId: 's-1', pipelineId: 'p-1' });
    const ids = { modelId: 1001, orderId: 1002, avatarId: 7 };
    expect(avatarKey(owner, ids, 'png')).toBe(`${owner}avatars/1001/1002/7.png`);
    expect(avatarKey(owner, { ...ids }, 'png')).toBe(avatarKey(owner, ids, 'png'));
  });

  it('keeps runs without a subject under their pipeline id', () => {
    expect(ownerPrefix({ subjectId: undefined, pipelineId: 'avatar-pipeline-42' })).toBe(
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

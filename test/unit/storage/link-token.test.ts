import { BlobLinkSigner } from '../../../src/storage';

describe('BlobLinkSigner', () => {
  const signer = new BlobLinkSigner('a secret of enough length');
  const now = Date.UTC(2026, 0, 1);

  it('gives back the key of a token it signed, until it expires', () => {
    const token = signer.sign('subjects/abc/avatars/1/2/3.png', now + 60_000);
    expect(token).not.toContain('subjects/');
    expect(signer.verify(token, now)).toBe('subjects/abc/avatars/1/2/3.png');
    expect(signer.verify(token, now + 59_000)).toBe('subjects/abc/avatars/1/2/3.png');
    expect(signer.verify(token, now + 60_000)).toBeUndefined();
  });

  it('refuses tokens signed with another secret, altered, or malformed', () => {
    const token = signer.sign('a/b.png', now + 60_000);
    expect(new BlobLinkSigner('another secret of enough length').verify(token, now)).toBeUndefined();
    const [, expires, mac] = token.split('.');
    const otherKey = Buffer.from('a/c.png').toString('base64url');
    expect(signer.verify(`${otherKey}.${expires}.${mac}`, now)).toBeUndefined();
    expect(signer.verify('garbage', now)).toBeUndefined();
    expect(signer.verify('', now)).toBeUndefined();
  });

  it('wants a secret of at least 16 bytes', () => {
    expect(() => new BlobLinkSigner('short')).toThrow(/at least 16 bytes/);
  });
});

import { AccessTokenSigner, covers, redactAccessToken } from '../../../src/api/access-tokens';

const SECRET = 'an-access-token-secret-of-32-characters!';
const NOW = Date.UTC(2026, 0, 1);

describe('browser access tokens', () => {
  const signer = new AccessTokenSigner(SECRET);
  const { token, expiresAtMs } = signer.mint({
    tenant: 'acme',
    kind: 'pipeline',
    runId: 'run-x',
    expiresAtMs: NOW + 60_500,
  });

  test('verify until they expire (held to the second), then never', () => {
    expect(expiresAtMs).toBe(NOW + 60_000);
    const claims = signer.verify(token, NOW);
    expect(claims).toMatchObject({ tenant: 'acme', kind: 'pipeline', expiresAtMs: NOW + 60_000 });
    expect(signer.verify(token, NOW + 59_999)).toBeDefined();
    expect(signer.verify(token, NOW + 60_000)).toBeUndefined();
  });

  test('cover their own run of their own kind only', () => {
    const claims = signer.verify(token, NOW)!;
    expect(covers(claims, 'pipeline', 'run-x')).toBe(true);
    expect(covers(claims, 'pipeline', 'run-y')).toBe(false);
    expect(covers(claims, 'pipeline', 'run-x ')).toBe(false);
    expect(covers(claims, 'campaign', 'run-x')).toBe(false);
  });

  test('are refused when signed with another key, tampered with or malformed', () => {
    expect(new AccessTokenSigner('another-secret-of-at-least-32-chars!!').verify(token, NOW)).toBeUndefined();
    // Without a secret each signer has a random key of its own (another process, another replica).
    expect(new AccessTokenSigner(undefined).verify(token, NOW)).toBeUndefined();
    const [, payload, mac] = token.split('.');
    const later = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), e: NOW / 1000 + 9e6 }),
    ).toString('base64url');
    for (const bad of [
      `at1.${later}.${mac}`,
      `at1.${payload}.${mac!.slice(1)}`,
      `at1.${payload}`,
      `at2.${payload}.${mac}`,
      `${token}.x`,
      '',
      'at1..',
      `at1.${'A'.repeat(600)}.${mac}`,
    ])
      expect(signer.verify(bad, NOW)).toBeUndefined();
  });

  test('carry the tenant, kind, a digest of the run and the expiry, nothing else', () => {
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as object;
    expect(Object.keys(payload).sort()).toEqual(['e', 'k', 'r', 't']);
    expect(JSON.stringify(payload)).not.toContain('run-x');
  });

  test('of a review link say so (`a`), and an ability they were not signed with is refused', () => {
    const review = signer.mint({
      tenant: 'acme',
      kind: 'pipeline',
      runId: 'run-x',
      expiresAtMs: NOW + 60_000,
      review: true,
    });
    expect(signer.verify(review.token, NOW)).toMatchObject({ review: true });
    expect(signer.verify(token, NOW)).toMatchObject({ review: false });
    const payload = JSON.parse(Buffer.from(review.token.split('.')[1]!, 'base64url').toString()) as object;
    expect(Object.keys(payload).sort()).toEqual(['a', 'e', 'k', 'r', 't']);
    // Signed, but with an ability this module does not know: not a token it made.
    const unknownAbility = Buffer.from(JSON.stringify({ ...payload, a: 'admin' })).toString('base64url');
    const mac = (signer as unknown as { mac(p: string): string }).mac(unknownAbility);
    expect(signer.verify(`at1.${unknownAbility}.${mac}`, NOW)).toBeUndefined();
  });

  test('are redacted from logged URLs', () => {
    expect(redactAccessToken(`/v1/pipelines/x?access_token=${token}`)).toBe(
      '/v1/pipelines/x?access_token=[redacted]',
    );
    expect(redactAccessToken(`/v1/x?a=1&ACCESS_TOKEN=${token}&b=2`)).toBe(
      '/v1/x?a=1&ACCESS_TOKEN=[redacted]&b=2',
    );
    expect(redactAccessToken('/v1/x?my_access_token=1')).toBe('/v1/x?my_access_token=1');
  });
});

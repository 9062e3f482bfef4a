import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/load-config';
import { resolveImageReference, type ImageAccessPolicy } from '../../../src/images/image-access';
import { tinyPng } from '../../fixtures/images';
import { InputError } from '@avatar-pipeline/client/errors';

let base: string;
let root: string;
let outside: string;
let policy: ImageAccessPolicy;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'image-access-')));
  root = join(base, 'selfies');
  outside = join(base, 'selfies-private');
  await mkdir(join(root, 'alice'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, 'alice', 'one.png'), tinyPng());
  await writeFile(join(outside, 'secret.png'), tinyPng());
  await symlink(join(outside, 'secret.png'), join(root, 'escape.png'));
  await symlink(join(root, 'alice', 'one.png'), join(root, 'alias.png'));
  await symlink(outside, join(root, 'linked-dir'));
  policy = { roots: [root], urlHosts: [] };
});
afterAll(() => rm(base, { recursive: true, force: true }));

async function refusal(reference: string, p: ImageAccessPolicy = policy): Promise<InputError> {
  const err: unknown = await resolveImageReference(reference, p, 'images[0]').then(
    (resolved) => new Error(`expected a refusal, got ${JSON.stringify(resolved)}`),
    (e: unknown) => e,
  );
  if (!(err instanceof InputError)) throw err;
  expect(err.issues[0]?.path).toBe('images[0]');
  return err;
}

describe('file references', () => {
  it('allows a file under an allowed root', async () => {
    const path = join(root, 'alice', 'one.png');
    expect(await resolveImageReference(path, policy)).toEqual({ kind: 'file', path });
  });

  it('allows a file under any of several roots', async () => {
    const path = join(outside, 'secret.png');
    expect(await resolveImageReference(path, { roots: [root, outside], urlHosts: [] })).toEqual({
      kind: 'file',
      path,
    });
  });

  it('allows a symlink that stays inside the root, resolving it', async () => {
    expect(await resolveImageReference(join(root, 'alias.png'), policy)).toEqual({
      kind: 'file',
      path: join(root, 'alice', 'one.png'),
    });
  });

  it('refuses path traversal out of the root', async () => {
    const err = await refusal(`${root}/../selfies-private/secret.png`);
    expect(err.issues[0]?.message).toMatch(/outside the allowed image directories/);
  });

  it('refuses /root/../etc/passwd', async () => {
    const err = await refusal(`${root}/../../../../../../etc/passwd`);
    expect(err.issues[0]?.message).toMatch(/outside the allowed image directories/);
  });

  it('refuses a sibling directory whose name starts like the root', async () => {
    const err = await refusal(join(outside, 'secret.png'));
    expect(err.issues[0]?.message).toMatch(/outside/);
  });

  it('refuses a symlinked file that escapes the root', async () => {
    const err = await refusal(join(root, 'escape.png'));
    expect(err.issues[0]?.message).toMatch(/outside/);
  });

  it('refuses a file inside a symlinked directory that escapes the root', async () => {
    await refusal(join(root, 'linked-dir', 'secret.png'));
  });

  it('refuses the root itself', async () => {
    await refusal(root);
  });

  it('refuses a relative path', async () => {
    const err = await refusal('alice/one.png');
    expect(err.issues[0]?.message).toBe('must be an absolute file path or an http(s) URL');
  });

  it('refuses a file that does not exist, without saying more about the disk', async () => {
    const err = await refusal(join(root, 'nobody.png'));
    expect(err.issues[0]?.message).toMatch(/does not exist/);
  });
});

describe('URL references', () => {
  const hosts = (...urlHosts: string[]): ImageAccessPolicy => ({ roots: [root], urlHosts });

  it('allows an http(s) URL on an allowed host', async () => {
    const resolved = await resolveImageReference('https://203.0.113.10/selfies/a.jpg', hosts('203.0.113.10'));
    expect(resolved.kind).toBe('url');
    expect(resolved.kind === 'url' && resolved.url.href).toBe('https://203.0.113.10/selfies/a.jpg');
  });

  it('compares hosts case-insensitively', async () => {
    await expect(
      resolveImageReference('HTTP://203.0.113.10/a.jpg', hosts('203.0.113.10')),
    ).resolves.toMatchObject({
      kind: 'url',
    });
  });

  it('refuses a host that is not allowed, naming it and the variable', async () => {
    const err = await refusal('https://evil.example/a.jpg', hosts('cdn.example.com'));
    expect(err.issues[0]?.message).toBe(
      'host "evil.example" is not in the allowed image hosts (IMAGE_URL_HOSTS)',
    );
  });

  it('refuses every URL when no host is allowed', async () => {
    await refusal('https://cdn.example.com/a.jpg');
  });

  it('refuses a URL cleanly under the default configuration (no IMAGE_URL_HOSTS)', async () => {
    const err = await refusal('https://cdn.example.com/a.jpg', loadConfig({}, root).imageAccess);
    expect(err.issues[0]?.message).toMatch(/not in the allowed image hosts/);
  });

  it.each(['127.0.0.1', '10.1.2.3', '192.168.0.5', '169.254.169.254', '172.16.0.1'])(
    'refuses the private address %s unless it is listed',
    async (address) => {
      await refusal(`http://${address}/a.jpg`, hosts('cdn.example.com'));
      await expect(resolveImageReference(`http://${address}/a.jpg`, hosts(address))).resolves.toMatchObject({
        kind: 'url',
      });
    },
  );

  it('refuses an IPv6 loopback literal unless it is listed', async () => {
    await refusal('http://[::1]:8080/a.jpg', hosts('cdn.example.com'));
    await expect(resolveImageReference('http://[::1]:8080/a.jpg', hosts('::1'))).resolves.toMatchObject({
      kind: 'url',
    });
  });

  it('refuses a listed name that resolves to a loopback address not listed itself', async () => {
    const err = await refusal('http://localhost/a.jpg', hosts('localhost'));
    expect(err.issues[0]?.message).toMatch(/resolves to a private address/);
  });

  it('refuses credentials in the URL', async () => {
    const err = await refusal('https://user:pass@203.0.113.10/a.jpg', hosts('203.0.113.10'));
    expect(err.issues[0]?.message).toBe('must not carry credentials in the URL');
  });

  it.each(['ftp://203.0.113.10/a.jpg', 'file:///etc/passwd', 'data:image/png;base64,AAAA', 'gopher://x/'])(
    'refuses the non-http reference %s',
    async (reference) => {
      const err = await refusal(reference, hosts('203.0.113.10', 'x'));
      expect(err.issues[0]?.message).toBe('must be an absolute file path or an http(s) URL');
    },
  );

  it('refuses a malformed http URL', async () => {
    const err = await refusal('http://exa mple.com/a.jpg', hosts('exa mple.com'));
    expect(err.issues[0]?.message).toBe('is not a valid URL');
  });
});

import type * as Crypto from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { apiTokenProblems } from '../../../src/api/bearer-auth';
import { credentialsOf } from '../../../src/config/api-credentials';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { loadConfig } from '../../../src/config/load-config';
import { DEFAULT_TENANT_SETTINGS, tenantSettingsOf } from '../../../src/config/tenants';
import { tokenIndex } from '../../../src/http/bearer-auth';
import { temporaryDirectory } from '../../helpers/temp-dir';

const T1 = 'token-one-0123456789abcdef';
const T2 = 'token-two-0123456789abcdef';

describe('API_TOKENS entries: tenant:token', () => {
  test('a bare token is the default tenant\u2019s; tenant:token is that tenant\u2019s', () => {
    expect(credentialsOf([T1, `acme:${T2}`])).toEqual([
      { tenant: 'default', token: T1 },
      { tenant: 'acme', token: T2 },
    ]);
    expect(apiTokenProblems([T1, `acme:${T2}`, `acme-2:${T1}x`])).toEqual([]);
  });

  test.each([
    ['an empty tenant', [`:${T1}`], /entry 1 is malformed/],
    ['an empty token', [T1, 'acme:'], /entry 2 is malformed/],
    ['two colons', [`acme:beta:${T1}`], /entry 1 is malformed/],
    ['an upper-case tenant id', [`Acme:${T1}`], /entry 1 has a bad tenant id: a tenant id is 1-40 lowercase/],
    ['a tenant id with a dot', [`ac.me:${T1}`], /entry 1 has a bad tenant id/],
    ['a 41-character tenant id', [`${'a'.repeat(41)}:${T1}`], /entry 1 has a bad tenant id/],
    [
      'a token under two tenants',
      [`acme:${T1}`, `beta:${T1}`],
      /entry 2 lists a token that also belongs to tenant "acme"/,
    ],
    [
      'a bare token also under a tenant',
      [T1, `beta:${T1}`],
      /entry 2 lists a token that also belongs to tenant "default"/,
    ],
    ['a short tenant token', [T1, 'acme:short'], /token 2 is 5 characters; use at least 16/],
  ])('refuses %s', (_name, entries, reason) => {
    const problems = apiTokenProblems(entries);
    expect(problems.join('\n')).toMatch(reason);
    // A malformed entry is told as such, never echoed: its parts may be a secret.
    expect(problems.join('\n')).not.toContain(T1);
  });
});

describe('constant-time token lookup', () => {
  test('finds a token\u2019s index comparing every configured token, whether or not it matches', () => {
    // The module object itself (an `import * as` namespace would be a copy the spy does not reach).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const spy = jest.spyOn(require('node:crypto') as typeof Crypto, 'timingSafeEqual');
    try {
      const indexOf = tokenIndex([T1, T2, 'token-three-0123456789']);
      spy.mockClear();
      expect(indexOf(T1)).toBe(0);
      expect(spy).toHaveBeenCalledTimes(3);
      spy.mockClear();
      expect(indexOf(T2)).toBe(1);
      expect(spy).toHaveBeenCalledTimes(3);
      spy.mockClear();
      expect(indexOf('no-such-token-0123456789')).toBe(-1);
      expect(spy).toHaveBeenCalledTimes(3);
      // Digests, so every comparison is of equal length whatever was presented.
      for (const [a, b] of spy.mock.calls as [Buffer, Buffer][])
        expect([a.length, b.length]).toEqual([32, 32]);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('API_TENANTS_FILE', () => {
  let dir: string;
  beforeAll(() => {
    dir = temporaryDirectory('tenants-file-');
  });
  const withFile = async (name: string, text: string) => {
    await writeFile(path.join(dir, name), text);
    return () => loadConfig({ API_TENANTS_FILE: name }, dir);
  };
  const refusal = (load: () => unknown): ConfigError => {
    try {
      load();
    } catch (err) {
      if (err instanceof ConfigError) return err;
      throw err;
    }
    throw new Error('accepted');
  };

  test('YAML: settings resolved with defaults for what a tenant leaves out', async () => {
    const load = await withFile(
      'tenants.yaml',
      [
        'tenants:',
        '  acme:',
        '    fairnessWeight: 3',
        '    campaignPriorityCeiling: 4',
        '    requestsPerMinute: 100',
        '    scopes: [read, start]',
        '  beta: {}',
      ].join('\n'),
    );
    const config = load();
    expect(tenantSettingsOf(config, 'acme')).toEqual({
      fairnessWeight: 3,
      campaignPriorityCeiling: 4,
      requestsPerMinute: 100,
      scopes: ['read', 'start'],
    });
    expect(tenantSettingsOf(config, 'beta')).toEqual({
      fairnessWeight: 1,
      campaignPriorityCeiling: 3,
      scopes: ['start', 'read', 'cancel', 'erase', 'review'],
    });
    expect(tenantSettingsOf(config, 'unnamed')).toEqual(DEFAULT_TENANT_SETTINGS);
    // Inherited object keys are no tenants.
    expect(tenantSettingsOf(config, 'constructor')).toEqual(DEFAULT_TENANT_SETTINGS);
  });

  test('JSON is read as well', async () => {
    const load = await withFile('tenants.json', JSON.stringify({ tenants: { acme: { fairnessWeight: 2 } } }));
    expect(tenantSettingsOf(load(), 'acme').fairnessWeight).toBe(2);
  });

  test('unset: every tenant has the defaults', () => {
    expect(tenantSettingsOf(loadConfig({}, '/srv'), 'acme')).toEqual(DEFAULT_TENANT_SETTINGS);
  });

  test.each([
    [
      'a negative weight',
      'tenants: { acme: { fairnessWeight: -1 } }',
      /tenants\.acme\.fairnessWeight: must be greater than 0/,
    ],
    ['an unknown scope', 'tenants: { acme: { scopes: [read, write] } }', /tenants\.acme\.scopes\.1: /],
    ['no scopes', 'tenants: { acme: { scopes: [] } }', /tenants\.acme\.scopes: must name at least one scope/],
    [
      'a ceiling of 0',
      'tenants: { acme: { campaignPriorityCeiling: 0 } }',
      /campaignPriorityCeiling: must be 1-5/,
    ],
    ['an unknown setting', 'tenants: { acme: { weight: 2 } }', /tenants\.acme: .*weight/],
    ['a bad tenant id', 'tenants: { Acme: {} }', /tenants\.Acme: a tenant id is 1-40 lowercase/],
    ['no tenants key', 'acme: {}', /\(the document\)|tenants/],
    ['text that is not YAML', 'tenants: [unclosed', /is not YAML or JSON/],
  ])('refuses %s naming API_TENANTS_FILE and the path', async (_name, text, reason) => {
    const load = await withFile('bad.yaml', text);
    const err = refusal(load);
    expect(err.problems.every((p) => p.variable === 'API_TENANTS_FILE')).toBe(true);
    expect(err.message).toMatch(reason);
  });

  test('refuses a file it cannot read', () => {
    const err = refusal(() => loadConfig({ API_TENANTS_FILE: 'missing.yaml' }, dir));
    expect(err.message).toMatch(/API_TENANTS_FILE: cannot read .*missing\.yaml \(ENOENT\)/);
  });
});

import { delimiter } from 'node:path';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { DEFAULT_PROVIDER_BASE_URL, SIMULATOR_API_KEY } from '@avatar-pipeline/client/config/env-schema';
import { loadConfig } from '../../../src/config/load-config';

const cwd = '/srv/app';

/** The ConfigError loadConfig refuses `env` with. */
function refusal(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env, cwd);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe('loadConfig defaults', () => {
  it('talks to the local simulator with its key when nothing is set', () => {
    const config = loadConfig({}, cwd);
    expect(config.provider).toEqual({
      baseUrl: DEFAULT_PROVIDER_BASE_URL,
      apiKey: SIMULATOR_API_KEY,
      timeoutMs: 30_000,
      writeSettleMs: 60_000,
    });
    expect(DEFAULT_PROVIDER_BASE_URL).toBe('http://127.0.0.1:4010');
  });

  it('uses the Temporal defaults of the design', () => {
    expect(loadConfig({}, cwd).temporal).toEqual({
      address: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'avatar-pipeline',
    });
  });

  it('reads images from the working directory only, and from no URL host', () => {
    expect(loadConfig({}, cwd).imageAccess).toEqual({
      roots: [cwd],
      urlHosts: [],
      excluded: [`${cwd}/.blobs`],
    });
  });

  it('has no API tokens and sane worker limits', () => {
    const config = loadConfig({}, cwd);
    expect(config.api.tokens).toEqual([]);
    expect(config.worker).toEqual({
      maxConcurrentActivities: 50,
      maxConcurrentWorkflowTasks: 20,
      maxCachedWorkflows: 1_000,
      providerRateControl: 'adaptive',
      shutdownGraceMs: 30_000,
      checks: {
        mode: 'on',
        concurrency: 1,
        thresholds: { faceMatchMaxDistance: 0.55, faceMinSize: 0.15, minSharpness: 40, duplicateMaxBits: 6 },
        avatarThresholds: { faceMatchMaxDistance: 0.55, unsafeMinScore: 0.6 },
      },
    });
  });

  it('treats blank variables as unset', () => {
    const config = loadConfig(
      { PROVIDER_BASE_URL: '  ', TEMPORAL_NAMESPACE: '', PROVIDER_TIMEOUT_MS: '' },
      cwd,
    );
    expect(config.provider.baseUrl).toBe(DEFAULT_PROVIDER_BASE_URL);
    expect(config.temporal.namespace).toBe('default');
    expect(config.provider.timeoutMs).toBe(30_000);
  });
});

describe('loadConfig with values', () => {
  it('reads every variable', () => {
    const config = loadConfig(
      {
        PROVIDER_BASE_URL: 'https://api.provider.example/rest/api/',
        PROVIDER_API_KEY: 'live-key',
        PROVIDER_TIMEOUT_MS: '12000',
        PROVIDER_WRITE_SETTLE_MS: '90000',
        TEMPORAL_ADDRESS: 'temporal.internal:7233',
        TEMPORAL_NAMESPACE: 'avatars',
        TEMPORAL_TASK_QUEUE: 'q1',
        IMAGE_ROOTS: ['selfies', '/data/uploads'].join(delimiter),
        IMAGE_URL_HOSTS: 'cdn.example.com, uploads.example.com,',
        API_TOKENS: 'a,b',
        WORKER_MAX_CONCURRENT_ACTIVITIES: '8',
      },
      cwd,
    );
    expect(config.provider).toEqual({
      baseUrl: 'https://api.provider.example/rest/api',
      apiKey: 'live-key',
      timeoutMs: 12_000,
      writeSettleMs: 90_000,
    });
    expect(config.temporal).toEqual({
      address: 'temporal.internal:7233',
      namespace: 'avatars',
      taskQueue: 'q1',
    });
    expect(config.imageAccess).toEqual({
      roots: ['/srv/app/selfies', '/data/uploads'],
      urlHosts: ['cdn.example.com', 'uploads.example.com'],
      excluded: ['/srv/app/.blobs'],
      givenRoots: ['/srv/app/selfies', '/data/uploads'],
    });
    expect(config.api.tokens).toEqual(['a', 'b']);
    expect(config.worker.maxConcurrentActivities).toBe(8);
  });

  it('reads AVATAR_PRIVATE_HOSTS as lower-case hosts, none by default', () => {
    expect(loadConfig({}, cwd).storage?.avatarPrivateHosts).toEqual([]);
    expect(
      loadConfig({ AVATAR_PRIVATE_HOSTS: 'CDN.internal, 10.0.0.5,[::1],images_svc' }, cwd).storage
        ?.avatarPrivateHosts,
    ).toEqual(['cdn.internal', '10.0.0.5', '[::1]', 'images_svc']);
  });

  it('accepts a key for the simulator too', () => {
    expect(loadConfig({ PROVIDER_API_KEY: 'other' }, cwd).provider.apiKey).toBe('other');
  });
});

describe('loadConfig refusals', () => {
  it.each([
    ['PROVIDER_BASE_URL', 'not a url', /http\(s\) URL/],
    ['PROVIDER_BASE_URL', 'ftp://files.example.com', /http\(s\) URL/],
    ['PROVIDER_TIMEOUT_MS', 'soon', /./],
    ['PROVIDER_TIMEOUT_MS', '0', /greater than 0/],
    ['PROVIDER_TIMEOUT_MS', '1.5', /whole number/],
    ['PROVIDER_WRITE_SETTLE_MS', '0', /greater than 0/],
    ['TEMPORAL_ADDRESS', 'localhost', /host:port/],
    ['TEMPORAL_ADDRESS', 'http://localhost:7233', /host:port/],
    ['WORKER_MAX_CONCURRENT_ACTIVITIES', '-3', /greater than 0/],
    ['WORKER_SHUTDOWN_GRACE_MS', 'forever', /./],
    [
      'AVATAR_PRIVATE_HOSTS',
      'http://cdn.internal/',
      /"http:\/\/cdn\.internal\/" is not a host name or IP address/,
    ],
    ['AVATAR_PRIVATE_HOSTS', 'cdn.internal:8080', /without scheme, port or path/],
    ['AVATAR_PRIVATE_HOSTS', 'ok.internal,two words', /"two words" is not a host name/],
  ])('names %s when it is %j', (variable, value, reason) => {
    const err = refusal({ PROVIDER_API_KEY: 'k', [variable]: value });
    expect(err.problems).toEqual([{ variable, reason: expect.stringMatching(reason) }]);
    expect(err.message).toContain(variable);
  });

  it('refuses a PROVIDER_TIMEOUT_MS the write start-to-close timeout would cut short, naming both', () => {
    const err = refusal({ PROVIDER_API_KEY: 'k', PROVIDER_TIMEOUT_MS: '60000' });
    expect(err.problems).toEqual([
      {
        variable: 'PROVIDER_TIMEOUT_MS',
        reason: expect.stringMatching(
          /60000 ms, not below the start-to-close timeout of provider writes \(60000 ms\)/,
        ),
      },
    ]);
  });

  it('refuses a settling wait (PROVIDER_TIMEOUT_MS plus PROVIDER_WRITE_SETTLE_MS) that leaves no room for retries, naming both', () => {
    const err = refusal({
      PROVIDER_API_KEY: 'k',
      PROVIDER_TIMEOUT_MS: '30000',
      PROVIDER_WRITE_SETTLE_MS: '600000',
    });
    expect(err.problems).toEqual([
      {
        variable: 'PROVIDER_WRITE_SETTLE_MS',
        reason: expect.stringMatching(/plus PROVIDER_TIMEOUT_MS is 630000 ms, more than a quarter/),
      },
    ]);
  });

  it('reports every bad variable at once', () => {
    const err = refusal({ PROVIDER_TIMEOUT_MS: 'x', TEMPORAL_ADDRESS: 'nope', PROVIDER_BASE_URL: 'nope' });
    expect(err.problems.map((p) => p.variable).sort()).toEqual([
      'PROVIDER_BASE_URL',
      'PROVIDER_TIMEOUT_MS',
      'TEMPORAL_ADDRESS',
    ]);
  });

  it('requires PROVIDER_API_KEY for a base URL other than the simulator', () => {
    const err = refusal({ PROVIDER_BASE_URL: 'https://api.provider.example/rest/api' });
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]?.variable).toBe('PROVIDER_API_KEY');
    expect(err.problems[0]?.reason).toContain('https://api.provider.example/rest/api');
  });

  it('treats a blank PROVIDER_API_KEY as missing', () => {
    expect(
      refusal({ PROVIDER_BASE_URL: 'https://api.provider.example', PROVIDER_API_KEY: ' ' }).problems[0]
        ?.variable,
    ).toBe('PROVIDER_API_KEY');
  });

  it('does not require a key for the simulator given with a trailing slash', () => {
    expect(loadConfig({ PROVIDER_BASE_URL: `${DEFAULT_PROVIDER_BASE_URL}/` }, cwd).provider.apiKey).toBe(
      SIMULATOR_API_KEY,
    );
  });
});

// Trust III, H1: the shipped compose file put BLOB_DIR inside IMAGE_ROOTS, so callers could name stored files.
describe('loadConfig with image roots and the blob store overlapping', () => {
  it.each([
    [
      { IMAGE_ROOTS: '/data/selfies', BLOB_DIR: '/data/selfies/uploads' },
      'contains the blob store BLOB_DIR (/data/selfies/uploads)',
    ],
    [
      { IMAGE_ROOTS: '/data/blobs/shared', BLOB_DIR: '/data/blobs' },
      'lies inside the blob store BLOB_DIR (/data/blobs)',
    ],
    [{ IMAGE_ROOTS: '/data', BLOB_DIR: '/data' }, 'contains the blob store BLOB_DIR (/data)'],
    [
      { IMAGE_ROOTS: `/srv/selfies${delimiter}/data`, BLOB_DIR: '/blobs', STORAGE_URL: 'file:///data/store' },
      'contains the blob store STORAGE_URL (/data/store)',
    ],
  ])('refuses %j, naming both', (env, reason) => {
    const problems = refusal(env).problems;
    expect(problems).toEqual([{ variable: 'IMAGE_ROOTS', reason: expect.stringContaining(reason) }]);
    expect(problems[0]!.reason).toMatch(/the entry \/\S+ /);
  });

  it('accepts roots beside the store, and excludes the store from the roots', () => {
    expect(
      loadConfig({ IMAGE_ROOTS: '/data/selfies', BLOB_DIR: '/data/selfies-blobs' }, cwd).imageAccess,
    ).toEqual({
      roots: ['/data/selfies'],
      urlHosts: [],
      excluded: ['/data/selfies-blobs'],
      givenRoots: ['/data/selfies'],
    });
  });
});

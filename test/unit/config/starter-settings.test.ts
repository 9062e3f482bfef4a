import path from 'node:path';
import { loadConfig } from '../../../src/config/load-config';
import { parseEnv } from '@avatar-pipeline/client/config/parse-env';
import { loadStarterSettings, starterSettingsOf } from '@avatar-pipeline/client/config/starter-settings';
import { loadProviderSettings } from '@avatar-pipeline/client/config/provider-settings';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';

const cwd = path.resolve('/srv/app');

describe('starter settings: worked out once, the same for starters and workers', () => {
  it('defaults the provider task queue, campaign directory and window', () => {
    const settings = loadStarterSettings({}, cwd);
    expect(settings.placement).toEqual({
      taskQueue: 'avatar-pipeline',
      providerTaskQueue: 'avatar-pipeline-provider',
      archiveAvatars: true,
      pollingBounds: { minIntervalMs: 5_000, maxIntervalMs: 3_600_000 },
      checks: { taskQueue: 'avatar-pipeline-checks', selfies: true, avatars: true, avatarRegenerations: 1 },
    });
    expect(settings.campaigns).toEqual({ maxInFlight: 'auto' });
    expect(settings.imageAccess).toEqual({
      roots: [cwd],
      urlHosts: [],
      excluded: [path.join(cwd, '.blobs')],
    });
  });

  it('derives the provider queue from the task queue, unless PROVIDER_TASK_QUEUE names one', () => {
    expect(loadStarterSettings({ TEMPORAL_TASK_QUEUE: 'tq' }, cwd).placement.providerTaskQueue).toBe(
      'tq-provider',
    );
    expect(
      loadStarterSettings({ TEMPORAL_TASK_QUEUE: 'tq', PROVIDER_TASK_QUEUE: 'quota' }, cwd).placement
        .providerTaskQueue,
    ).toBe('quota');
  });

  it('lets code override the task queue (the provider queue follows) or the provider queue', () => {
    const e = parseEnv({});
    expect(starterSettingsOf({}, e, cwd, { temporal: { taskQueue: 'mine' } }).placement).toEqual(
      expect.objectContaining({ taskQueue: 'mine', providerTaskQueue: 'mine-provider' }),
    );
    expect(starterSettingsOf({}, e, cwd, { providerTaskQueue: 'limited' }).placement.providerTaskQueue).toBe(
      'limited',
    );
    expect(starterSettingsOf({}, e, cwd, { temporal: { address: undefined } }).temporal.address).toBe(
      'localhost:7233',
    );
  });

  it('is what the workers resolve too', () => {
    const env = { TEMPORAL_TASK_QUEUE: 'tq', CAMPAIGN_MAX_IN_FLIGHT: '7' };
    const settings = loadStarterSettings(env, cwd);
    const config = loadConfig(env, cwd);
    expect(config.placement).toEqual(settings.placement);
    expect(config.campaigns).toEqual(settings.campaigns);
    expect(config.campaigns).toEqual({ maxInFlight: 7 });
    expect(config.temporal).toEqual(settings.temporal);
  });
});

describe('a starter reads only its own variables', () => {
  // What an app that embeds the client may well set for itself.
  const appsOwn = { LOG_LEVEL: 'bogus', LOG_FORMAT: 'pretty', API_PORT: 'abc', PROVIDER_MAX_RPS: 'lots' };

  it('ignores the worker’s and the API’s variables, which the whole configuration refuses', () => {
    expect(loadStarterSettings(appsOwn, cwd)).toEqual(loadStarterSettings({}, cwd));
    expect(() => loadConfig(appsOwn, cwd)).toThrow(/LOG_LEVEL/);
  });

  it('still names each of its own variables that is wrong', () => {
    let error: unknown;
    try {
      loadStarterSettings({ ...appsOwn, TEMPORAL_TLS: 'maybe', PROVIDER_POLL_MIN_INTERVAL_MS: 'soon' }, cwd);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const variables = (error as ConfigError).problems.map((p) => p.variable).sort();
    expect(variables).toEqual(['PROVIDER_POLL_MIN_INTERVAL_MS', 'TEMPORAL_TLS']);
  });

  it('reads the selfie and avatar checks and their queue, which follows TEMPORAL_TASK_QUEUE unless set', () => {
    expect(
      loadStarterSettings({ TEMPORAL_TASK_QUEUE: 'q', SELFIE_CHECKS: 'false' }, cwd).placement.checks,
    ).toEqual({
      taskQueue: 'q-checks',
      selfies: false,
      avatars: true,
      avatarRegenerations: 1,
    });
    expect(loadStarterSettings({ CHECKS_TASK_QUEUE: 'faces' }, cwd).placement.checks).toEqual({
      taskQueue: 'faces',
      selfies: true,
      avatars: true,
      avatarRegenerations: 1,
    });
    expect(
      loadStarterSettings({ AVATAR_CHECKS: 'false', AVATAR_CHECK_REGENERATIONS: '3' }, cwd).placement.checks,
    ).toMatchObject({ avatars: false, avatarRegenerations: 3 });
    expect(() => loadStarterSettings({ AVATAR_CHECK_REGENERATIONS: '9' }, cwd)).toThrow(
      /AVATAR_CHECK_REGENERATIONS.*at most 5/,
    );
  });

  it('reads the provider settings (for generate and retry checks) without the rest', () => {
    expect(loadProviderSettings({ ...appsOwn, PROVIDER_TIMEOUT_MS: '20000' })).toEqual(
      expect.objectContaining({ timeoutMs: 20_000 }),
    );
    expect(() => loadProviderSettings({ PROVIDER_TIMEOUT_MS: 'abc' })).toThrow(/PROVIDER_TIMEOUT_MS/);
  });
});

import { loadConfig } from '../../../src/config/load-config';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';

const cwd = '/srv/app';

describe('API and callback configuration', () => {
  it('has defaults: port 8080 on loopback, .blobs under the working directory, 10 MiB files, no callbacks', () => {
    const config = loadConfig({}, cwd);
    expect(config.api).toEqual({
      tokens: [],
      port: 8080,
      host: '127.0.0.1',
      blobDir: '/srv/app/.blobs',
      archiveLinkTtlSeconds: 15 * 60,
      maxFileBytes: 10 * 1024 * 1024,
      maxRequestBytes: 64 * 1024 * 1024,
      selfieRetention: { kind: 'after-training' },
      limits: {
        requestTimeoutMs: 120_000,
        maxConnections: 1024,
        maxConnectionsPerClient: 64,
        rateLimitPerMinute: 600,
        eventStreamsPerRun: 50,
        eventStreamsPerToken: 20,
      },
    });
    expect(config.callbacks).toEqual({ privateHosts: [], legacySignature: false, logRetentionDays: 14 });
  });

  it('reads every variable', () => {
    const config = loadConfig(
      {
        API_TOKENS: 'a, b',
        API_PORT: '9000',
        API_HOST: '0.0.0.0',
        BLOB_DIR: '/data/blobs',
        API_MAX_FILE_BYTES: '2048',
        API_MAX_REQUEST_BYTES: '8192',
        SELFIE_RETENTION: '12h',
        API_REQUEST_TIMEOUT_MS: '30000',
        API_MAX_CONNECTIONS: '64',
        API_MAX_CONNECTIONS_PER_CLIENT: '8',
        API_RATE_LIMIT_PER_MINUTE: '100',
        API_EVENT_STREAMS_PER_RUN: '5',
        API_EVENT_STREAMS_PER_TOKEN: '3',
        TEMPORAL_UI_URL: 'http://localhost:8233/',
        API_PUBLIC_URL: 'https://avatars.example.com/api/',
        API_ARCHIVE_LINK_TTL_SECONDS: '120',
        CALLBACK_SIGNING_SECRET: 'a-long-enough-secret',
        CALLBACK_PRIVATE_HOSTS: 'Receiver.Internal,127.0.0.1',
      },
      cwd,
    );
    expect(config.api).toEqual({
      tokens: ['a', 'b'],
      port: 9000,
      host: '0.0.0.0',
      blobDir: '/data/blobs',
      archiveLinkTtlSeconds: 120,
      maxFileBytes: 2048,
      maxRequestBytes: 8192,
      selfieRetention: { kind: 'after-end-plus', ms: 12 * 60 * 60 * 1000 },
      limits: {
        requestTimeoutMs: 30_000,
        maxConnections: 64,
        maxConnectionsPerClient: 8,
        rateLimitPerMinute: 100,
        eventStreamsPerRun: 5,
        eventStreamsPerToken: 3,
      },
      temporalUiUrl: 'http://localhost:8233',
      publicUrl: 'https://avatars.example.com/api',
    });
    expect(config.callbacks).toEqual({
      signingSecret: 'a-long-enough-secret',
      privateHosts: ['receiver.internal', '127.0.0.1'],
      legacySignature: false,
      logRetentionDays: 14,
    });
  });

  it.each([
    ['API_PORT', '70000', /port 0-65535/],
    ['API_PORT', 'http', /./],
    ['API_MAX_FILE_BYTES', '0', /greater than 0/],
    ['API_MAX_REQUEST_BYTES', '-1', /greater than 0/],
    ['SELFIE_RETENTION', 'forever', /after-training, after-end or a duration/],
    ['API_RATE_LIMIT_PER_MINUTE', '0', /greater than 0/],
    ['API_EVENT_STREAMS_PER_RUN', '0', /greater than 0/],
    ['API_EVENT_STREAMS_PER_TOKEN', 'many', /./],
    ['API_MAX_CONNECTIONS_PER_CLIENT', '0', /greater than 0/],
    ['API_MAX_CONNECTIONS_PER_CLIENT', '2.5', /whole number/],
    ['API_REQUEST_TIMEOUT_MS', 'soon', /./],
    ['TEMPORAL_UI_URL', 'localhost:8233', /http\(s\) URL/],
    ['CALLBACK_SIGNING_SECRET', 'short', /at least 16 characters/],
    ['API_PUBLIC_URL', 'avatars.example.com', /http\(s\) URL/],
    ['API_PUBLIC_URL', 'https://avatars.example.com/?x=1', /no query|not have a query/],
  ])('names %s when it is %j', (variable, value, reason) => {
    let error: unknown;
    try {
      loadConfig({ [variable]: value }, cwd);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([{ variable, reason: expect.stringMatching(reason) }]);
  });
});

import { randomBytes } from 'node:crypto';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { loadConfig } from '../../../src/config/load-config';
import { loadOperationsConfig } from '../../../src/config/operations-config';

const cwd = '/srv/app';
const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');

function refusal(load: () => unknown): ConfigError {
  try {
    load();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('Temporal access settings', () => {
  it('adds nothing when none is set', () => {
    const { temporal } = loadConfig({}, cwd);
    expect(temporal.tls).toBeUndefined();
    expect(temporal.apiKey).toBeUndefined();
    expect(temporal.encryption).toBeUndefined();
  });

  it('turns TLS on for an API key (Temporal Cloud), unless TEMPORAL_TLS=false', () => {
    expect(loadConfig({ TEMPORAL_API_KEY: 'k' }, cwd).temporal).toMatchObject({ apiKey: 'k', tls: true });
    expect(loadConfig({ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }, cwd).temporal.tls).toBeUndefined();
  });

  it('refuses a certificate without its key, and a bad TEMPORAL_TLS', () => {
    expect(refusal(() => loadConfig({ TEMPORAL_TLS_CLIENT_CERT_PATH: 'c.pem' }, cwd)).message).toContain(
      'TEMPORAL_TLS_CLIENT_KEY_PATH',
    );
    expect(refusal(() => loadConfig({ TEMPORAL_TLS: 'maybe' }, cwd)).message).toContain('TEMPORAL_TLS');
  });

  it('turns encryption on with keys; one key needs no id, several do', () => {
    expect(loadConfig({ ENCRYPTION_KEYS: `k1:${keyA}` }, cwd).temporal.encryption).toMatchObject({
      currentKeyId: 'k1',
      keys: [{ id: 'k1' }],
    });
    const both = `k1:${keyA},k2:${keyB}`;
    expect(
      loadConfig({ ENCRYPTION_KEYS: both, ENCRYPTION_KEY_ID: 'k2' }, cwd).temporal.encryption?.currentKeyId,
    ).toBe('k2');
    expect(refusal(() => loadConfig({ ENCRYPTION_KEYS: both }, cwd)).message).toContain('ENCRYPTION_KEY_ID');
    expect(
      refusal(() => loadConfig({ ENCRYPTION_KEYS: both, ENCRYPTION_KEY_ID: 'k3' }, cwd)).message,
    ).toContain('"k3" is not among');
    expect(refusal(() => loadConfig({ ENCRYPTION_KEY_ID: 'k1' }, cwd)).message).toContain('ENCRYPTION_KEYS');
  });

  it('names a bad key without printing it', () => {
    const short = randomBytes(16).toString('base64');
    const error = refusal(() => loadConfig({ ENCRYPTION_KEYS: `k1:${short}` }, cwd));
    expect(error.message).toContain('ENCRYPTION_KEYS');
    expect(error.message).not.toContain(short);
  });
});

describe('operations settings', () => {
  it('defaults: JSON logs at INFO, no metrics endpoint, no tracing, codec server on localhost without tokens', () => {
    expect(loadOperationsConfig({})).toEqual({
      metrics: {},
      logging: { level: 'INFO', format: 'json' },
      tracing: { serviceName: 'avatar-pipeline' },
      codecServer: { tokens: [], corsOrigins: [], host: '127.0.0.1', port: 8888 },
    });
  });

  it('reads every variable', () => {
    expect(
      loadOperationsConfig({
        METRICS_BIND_ADDRESS: '0.0.0.0:9464',
        LOG_LEVEL: 'debug',
        LOG_FORMAT: 'text',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_SERVICE_NAME: 'avatars-eu',
        CODEC_SERVER_TOKENS: 'a, b',
        CODEC_CORS_ORIGINS: 'http://localhost:8080,https://ui.example.com',
        CODEC_SERVER_HOST: '0.0.0.0',
        CODEC_SERVER_PORT: '9999',
      }),
    ).toEqual({
      metrics: { bindAddress: '0.0.0.0:9464' },
      logging: { level: 'DEBUG', format: 'text' },
      tracing: { endpoint: 'http://collector:4318', serviceName: 'avatars-eu' },
      codecServer: {
        tokens: ['a', 'b'],
        corsOrigins: ['http://localhost:8080', 'https://ui.example.com'],
        host: '0.0.0.0',
        port: 9999,
      },
    });
  });

  it.each([
    [{ METRICS_BIND_ADDRESS: '9464' }, 'METRICS_BIND_ADDRESS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ LOG_FORMAT: 'xml' }, 'LOG_FORMAT'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ CODEC_CORS_ORIGINS: 'http://localhost:8080/' }, 'CODEC_CORS_ORIGINS'],
    [{ CODEC_CORS_ORIGINS: '*' }, 'CODEC_CORS_ORIGINS'],
    [{ CODEC_SERVER_PORT: '70000' }, 'CODEC_SERVER_PORT'],
  ])('refuses %j', (env, variable) => {
    expect(refusal(() => loadOperationsConfig(env)).message).toContain(variable);
  });
});

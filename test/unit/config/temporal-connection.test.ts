import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { parseEnv } from '@avatar-pipeline/client/config/parse-env';
import { temporalConnection } from '@avatar-pipeline/client/config/temporal-connection';
import { temporaryDirectory } from '../../helpers/temp-dir';

const dir = temporaryDirectory('temporal-connection-');
writeFileSync(path.join(dir, 'client.pem'), 'CERT');
writeFileSync(path.join(dir, 'client.key'), 'KEY');
writeFileSync(path.join(dir, 'ca.pem'), 'CA');

function connection(env: NodeJS.ProcessEnv) {
  return temporalConnection(env, parseEnv(env), dir);
}

function refusal(env: NodeJS.ProcessEnv): ConfigError {
  try {
    connection(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const text = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString() : bytes);

describe('Temporal connection from the TEMPORAL_* variables (@temporalio/envconfig)', () => {
  it('is localhost:7233, namespace default, no TLS, when nothing is set', () => {
    expect(connection({})).toEqual({ address: 'localhost:7233', namespace: 'default' });
  });

  it('takes blank values as unset, as .env.example and compose leave them', () => {
    const blank = {
      TEMPORAL_ADDRESS: '',
      TEMPORAL_NAMESPACE: ' ',
      TEMPORAL_API_KEY: '',
      TEMPORAL_TLS: '',
      TEMPORAL_TLS_CLIENT_CERT_PATH: '',
      TEMPORAL_TLS_CLIENT_KEY_PATH: '',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: '',
      TEMPORAL_TLS_SERVER_NAME: '',
    };
    expect(connection(blank)).toEqual({ address: 'localhost:7233', namespace: 'default' });
  });

  it('turns TLS on for an API key (Temporal Cloud), unless TEMPORAL_TLS=false', () => {
    const cloud = { TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'ns.acct' };
    expect(connection({ ...cloud, TEMPORAL_API_KEY: 'k' })).toEqual({
      address: 'ns.acct.tmprl.cloud:7233',
      namespace: 'ns.acct',
      apiKey: 'k',
      tls: true,
    });
    expect(connection({ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }).tls).toBeUndefined();
  });

  it('reads TEMPORAL_TLS=yes as true, as every flag of the package', () => {
    expect(connection({ TEMPORAL_TLS: 'yes' }).tls).toBeTruthy();
    expect(connection({ TEMPORAL_TLS: 'no', TEMPORAL_API_KEY: 'k' }).tls).toBeUndefined();
  });

  it('reads the certificate, key and CA files, relative paths from the working directory', () => {
    const { tls } = connection({
      TEMPORAL_TLS_CLIENT_CERT_PATH: 'client.pem',
      TEMPORAL_TLS_CLIENT_KEY_PATH: path.join(dir, 'client.key'),
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: 'ca.pem',
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    if (typeof tls !== 'object') throw new Error('expected a TLS configuration');
    expect(tls.serverNameOverride).toBe('temporal.internal');
    expect(text(tls.serverRootCACertificate)).toBe('CA');
    expect(text(tls.clientCertPair?.crt)).toBe('CERT');
    expect(text(tls.clientCertPair?.key)).toBe('KEY');
  });

  it('passes TEMPORAL_GRPC_META_* on as gRPC headers', () => {
    expect(connection({ TEMPORAL_GRPC_META_X_TENANT: 'blue' }).metadata).toEqual({ 'x-tenant': 'blue' });
  });

  it.each([
    ['TEMPORAL_TLS_SERVER_CA_CERT_PATH', {}],
    ['TEMPORAL_TLS_CLIENT_CERT_PATH', { TEMPORAL_TLS_CLIENT_KEY_PATH: 'client.key' }],
    ['TEMPORAL_TLS_CLIENT_KEY_PATH', { TEMPORAL_TLS_CLIENT_CERT_PATH: 'client.pem' }],
  ])('names %s when its file cannot be read', (variable, others) => {
    const err = refusal({ ...others, [variable]: 'missing.pem' });
    expect(err.problems).toEqual([
      { variable, reason: `cannot read ${path.join(dir, 'missing.pem')} (ENOENT)` },
    ]);
  });

  it('refuses a certificate without its key, certificates with TLS off, and a TEMPORAL_TLS typo', () => {
    expect(refusal({ TEMPORAL_TLS_CLIENT_CERT_PATH: 'client.pem' }).problems[0]?.variable).toBe(
      'TEMPORAL_TLS_CLIENT_KEY_PATH',
    );
    expect(refusal({ TEMPORAL_TLS_CLIENT_KEY_PATH: 'client.key' }).problems[0]?.variable).toBe(
      'TEMPORAL_TLS_CLIENT_CERT_PATH',
    );
    expect(refusal({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_CA_CERT_PATH: 'ca.pem' }).problems).toEqual([
      { variable: 'TEMPORAL_TLS', reason: 'is false, but TLS certificate files are set' },
    ]);
    expect(() => connection({ TEMPORAL_TLS: 'ture' })).toThrow(/TEMPORAL_TLS: must be true or false/);
  });
});

describe('the profile file', () => {
  it('is not read from the temporal CLI default location', () => {
    const config = path.join(dir, 'xdg');
    mkdirSync(path.join(config, 'temporalio'), { recursive: true });
    writeFileSync(
      path.join(config, 'temporalio', 'temporal.toml'),
      '[profile.default]\naddress = "elsewhere:7233"\napi_key = "theirs"\n',
    );
    expect(connection({ XDG_CONFIG_HOME: config, HOME: dir })).toEqual({
      address: 'localhost:7233',
      namespace: 'default',
    });
  });

  it.each(['TEMPORAL_CONFIG_FILE', 'TEMPORAL_PROFILE'])('refuses %s rather than ignore it', (variable) => {
    expect(refusal({ [variable]: 'prod' }).problems).toEqual([
      { variable, reason: 'is not read: set the TEMPORAL_* variables instead' },
    ]);
  });
});

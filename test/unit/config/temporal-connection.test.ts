import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../../src/config/config-error';
import { parseEnv } from '../../../src/config/parse-env';
import { temporalConnection } from '../../../src/config/temporal-connection';

const dir = mkdtempSync(path.join(tmpdir(), 'temporal-connection-'));
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
  const file = path.join(dir, 'temporal.toml');
  writeFileSync(
    file,
    [
      '[profile.default]',
      'address = "file-default:7233"',
      'namespace = "from-file"',
      '[profile.cloud]',
      'address = "ns.acct.tmprl.cloud:7233"',
      'api_key = "file-key"',
      '[profile.broken]',
      'address = "no-port"',
    ].join('\n'),
  );

  it('is read only when TEMPORAL_CONFIG_FILE names it, not from the temporal CLI default location', () => {
    const config = path.join(dir, 'xdg');
    mkdirSync(path.join(config, 'temporalio'), { recursive: true });
    writeFileSync(
      path.join(config, 'temporalio', 'temporal.toml'),
      '[profile.default]\naddress = "elsewhere:7233"\n',
    );
    const home = { XDG_CONFIG_HOME: config, HOME: dir };
    expect(connection(home).address).toBe('localhost:7233');
    expect(connection({ ...home, TEMPORAL_CONFIG_FILE: 'temporal.toml' })).toEqual({
      address: 'file-default:7233',
      namespace: 'from-file',
    });
  });

  it('takes TEMPORAL_PROFILE, and the variables over the file', () => {
    expect(connection({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud' })).toEqual({
      address: 'ns.acct.tmprl.cloud:7233',
      namespace: 'default',
      apiKey: 'file-key',
      tls: true,
    });
    expect(
      connection({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud', TEMPORAL_ADDRESS: 'mine:7233' })
        .address,
    ).toBe('mine:7233');
  });

  it('names the variable of a missing file, an unknown profile, a bad address in the file', () => {
    expect(refusal({ TEMPORAL_CONFIG_FILE: 'nope.toml' }).problems).toEqual([
      { variable: 'TEMPORAL_CONFIG_FILE', reason: `cannot read ${path.join(dir, 'nope.toml')} (ENOENT)` },
    ]);
    expect(refusal({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' }).problems[0]?.variable).toBe(
      'TEMPORAL_PROFILE',
    );
    expect(refusal({ TEMPORAL_PROFILE: 'cloud' }).problems[0]).toEqual({
      variable: 'TEMPORAL_PROFILE',
      reason: expect.stringContaining('needs TEMPORAL_CONFIG_FILE'),
    });
    expect(refusal({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'broken' }).problems).toEqual([
      {
        variable: 'TEMPORAL_CONFIG_FILE',
        reason: 'address "no-port" must be host:port, e.g. localhost:7233',
      },
    ]);
  });
});

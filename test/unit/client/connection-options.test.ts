import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { temporalConnectionOptions } from '../../../src/client/connection-options';
import { ConfigError } from '../../../src/config/config-error';

describe('Temporal connection options', () => {
  it('is the address alone for a local server', () => {
    expect(temporalConnectionOptions({ address: 'localhost:7233' })).toEqual({ address: 'localhost:7233' });
  });

  it('uses TLS with the system roots for an API key (Temporal Cloud)', () => {
    expect(
      temporalConnectionOptions({ address: 'ns.acct.tmprl.cloud:7233', apiKey: 'key', tls: {} }),
    ).toEqual({
      address: 'ns.acct.tmprl.cloud:7233',
      apiKey: 'key',
      tls: true,
    });
  });

  it('reads the client certificate, key and CA files', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'tls-'));
    const files = {
      cert: path.join(dir, 'c.pem'),
      key: path.join(dir, 'k.pem'),
      ca: path.join(dir, 'ca.pem'),
    };
    await writeFile(files.cert, 'CERT');
    await writeFile(files.key, 'KEY');
    await writeFile(files.ca, 'CA');
    const options = temporalConnectionOptions({
      address: 'temporal:7233',
      tls: {
        clientCertPath: files.cert,
        clientKeyPath: files.key,
        serverCaPath: files.ca,
        serverName: 'temporal.internal',
      },
    });
    expect(options.tls).toEqual({
      serverNameOverride: 'temporal.internal',
      serverRootCACertificate: Buffer.from('CA'),
      clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') },
    });
  });

  it('names the variable of a certificate file it cannot read', () => {
    let error: unknown;
    try {
      temporalConnectionOptions({ address: 'temporal:7233', tls: { serverCaPath: '/nonexistent/ca.pem' } });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('TEMPORAL_TLS_SERVER_CA_CERT_PATH');
    expect((error as Error).message).toContain('ENOENT');
  });
});

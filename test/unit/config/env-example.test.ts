import { readFileSync } from 'node:fs';
import path from 'node:path';
import { envSchema } from '@avatar-pipeline/client/config/env-schema';

/** .env.example is the list operators copy: every variable the package reads is in it. */
/** Read by @temporalio/envconfig rather than envSchema (packages/client/src/config/temporal-connection.ts). */
const connectionVariables = [
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_SERVER_NAME',
];

describe('.env.example', () => {
  const text = readFileSync(path.join(__dirname, '..', '..', '..', '.env.example'), 'utf8');
  const listed = new Set(
    text
      .split('\n')
      .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined),
  );

  it.each([...new Set([...Object.keys(envSchema.shape), ...connectionVariables])])('lists %s', (variable) => {
    expect(listed.has(variable)).toBe(true);
  });

  it('holds no real secret', () => {
    for (const variable of [
      'PROVIDER_API_KEY',
      'TEMPORAL_API_KEY',
      'ENCRYPTION_KEYS',
      'CODEC_SERVER_TOKENS',
    ]) {
      expect(text).toMatch(new RegExp(`^${variable}=$`, 'm'));
    }
  });
});

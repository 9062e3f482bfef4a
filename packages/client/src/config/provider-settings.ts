import { activityTimeoutProblems } from './activity-timeout-rules';
import { ConfigError } from './config-error';
import { DEFAULT_PROVIDER_BASE_URL, envSchema, SIMULATOR_API_KEY, type Env } from './env-schema';
import { parseEnvOf } from './parse-env';

/** How the provider is reached: its URL and key, how long a request may take, how long a write may take to show. */
export interface ProviderSettings {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  writeSettleMs?: number;
}

const PROVIDER_VARIABLES = {
  PROVIDER_BASE_URL: true,
  PROVIDER_API_KEY: true,
  PROVIDER_TIMEOUT_MS: true,
  PROVIDER_WRITE_SETTLE_MS: true,
} as const;
type ProviderEnv = Pick<Env, keyof typeof PROVIDER_VARIABLES>;

/**
 * The provider settings from parsed variables. The key may be left out only for the local
 * simulator (the default URL); request and settle times are checked against the write
 * activities' timeouts, naming both variables.
 */
export function providerSettingsOf(e: ProviderEnv): ProviderSettings {
  const apiKey =
    e.PROVIDER_API_KEY ?? (e.PROVIDER_BASE_URL === DEFAULT_PROVIDER_BASE_URL ? SIMULATOR_API_KEY : undefined);
  const timeoutProblems = activityTimeoutProblems({
    providerTimeoutMs: e.PROVIDER_TIMEOUT_MS,
    writeSettleMs: e.PROVIDER_WRITE_SETTLE_MS,
  });
  if (timeoutProblems.length > 0) throw new ConfigError(timeoutProblems);
  if (apiKey === undefined) {
    throw new ConfigError([
      {
        variable: 'PROVIDER_API_KEY',
        reason: `is required when PROVIDER_BASE_URL points at a real provider (${e.PROVIDER_BASE_URL})`,
      },
    ]);
  }
  return {
    baseUrl: e.PROVIDER_BASE_URL,
    apiKey,
    timeoutMs: e.PROVIDER_TIMEOUT_MS,
    writeSettleMs: e.PROVIDER_WRITE_SETTLE_MS,
  };
}

/** The provider settings from the environment, reading no other variable. */
export function loadProviderSettings(env: NodeJS.ProcessEnv = process.env): ProviderSettings {
  return providerSettingsOf(parseEnvOf(envSchema.pick(PROVIDER_VARIABLES), env));
}

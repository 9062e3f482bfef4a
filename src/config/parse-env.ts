import { ConfigError } from './config-error';
import { envSchema, type Env } from './env-schema';

/** Validates the whole environment; every bad variable is reported together, by name and reason. */
export function parseEnv(env: NodeJS.ProcessEnv): Env {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        variable: issue.path.map(String).join('.'),
        reason: issue.message,
      })),
    );
  }
  return parsed.data;
}

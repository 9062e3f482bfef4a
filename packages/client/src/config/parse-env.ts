import type { z } from 'zod';
import { ConfigError } from './config-error';
import { envSchema, type Env } from './env-schema';

/** Validates the whole environment; every bad variable is reported together, by name and reason. */
export function parseEnv(env: NodeJS.ProcessEnv): Env {
  return parseEnvOf(envSchema, env);
}

/** Validates the variables `schema` knows (a part of envSchema), reporting every bad one together. */
export function parseEnvOf<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const parsed = schema.safeParse(env);
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

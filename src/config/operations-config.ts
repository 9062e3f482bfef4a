import { parseEnv } from '@avatar-pipeline/client/config/parse-env';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';

export type LogLevelName = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/** Settings only the long-running processes need: metrics, logs and traces, the codec server. */
export interface OperationsConfig {
  metrics: { bindAddress?: string };
  logging: { level: LogLevelName; format: 'json' | 'text' };
  tracing: { endpoint?: string; serviceName: string };
  codecServer: { tokens: string[]; corsOrigins: string[]; host: string; port: number };
}

export function loadOperationsConfig(env: NodeJS.ProcessEnv = process.env): OperationsConfig {
  const e = parseEnv(env);
  const badOrigin = e.CODEC_CORS_ORIGINS.find((origin) => !isOrigin(origin));
  if (badOrigin !== undefined) {
    throw new ConfigError([
      {
        variable: 'CODEC_CORS_ORIGINS',
        reason: `"${badOrigin}" is not an origin (scheme://host[:port], no path), e.g. http://localhost:8080`,
      },
    ]);
  }
  return {
    metrics: e.METRICS_BIND_ADDRESS ? { bindAddress: e.METRICS_BIND_ADDRESS } : {},
    logging: { level: e.LOG_LEVEL, format: e.LOG_FORMAT },
    tracing: {
      ...(e.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT } : {}),
      serviceName: e.OTEL_SERVICE_NAME,
    },
    codecServer: {
      tokens: e.CODEC_SERVER_TOKENS,
      corsOrigins: e.CODEC_CORS_ORIGINS,
      host: e.CODEC_SERVER_HOST,
      port: e.CODEC_SERVER_PORT,
    },
  };
}

function isOrigin(value: string): boolean {
  if (value === '*') return false;
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
}

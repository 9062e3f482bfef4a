import type { FastifyInstance } from 'fastify';
import { createApiServer, type ApiServerOptions } from '../../src/api/server';
import type { AppConfig } from '../../src/config/load-config';

export interface TestApi {
  app: FastifyInstance;
  /** http://127.0.0.1:<port> */
  base: string;
}

/**
 * The starter API as `avatar-pipeline api` serves it (its provider client built from the config),
 * on a free loopback port. The caller closes `app`.
 */
export async function startTestApi(options: ApiServerOptions): Promise<TestApi> {
  const app = await createApiServer(options);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base };
}

/** A test config whose API section is changed by `api` (bearer tokens, blob directory, limits). */
export function withApi(config: AppConfig, api: Partial<AppConfig['api']>): AppConfig {
  return { ...config, api: { ...config.api, ...api } };
}

export interface ApiAnswer {
  status: number;
  text: string;
  /** The answer parsed as JSON; undefined when it is empty or not JSON. */
  body: unknown;
}

/**
 * A bearer-authenticated caller of a test API: JSON bodies are sent as JSON, FormData as multipart.
 * `base` is read at each call, so it may be set in a beforeAll after the caller is made.
 */
export function apiCaller(
  base: () => string,
  token: string,
): (method: string, url: string, body?: unknown) => Promise<ApiAnswer> {
  return async (method, url, body) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    let payload: string | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${base()}${url}`, {
      method,
      headers,
      ...(payload !== undefined ? { body: payload } : {}),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, text, body: parsed };
  };
}

import type { RunningSimulator } from '../../../../src/simulator';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body; undefined when it is not JSON. */
  json: unknown;
}

/** Plain fetch against the simulator: the typed provider client is tested elsewhere. */
export async function call(
  sim: Pick<RunningSimulator, 'url'>,
  method: 'GET' | 'POST',
  path: string,
  options: { body?: unknown; apiKey?: string | null; rawBody?: string } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = {};
  if (options.apiKey !== null) headers.Authorization = `Bearer ${options.apiKey ?? 'sim-key'}`;
  let body: string | undefined;
  if (options.rawBody !== undefined || options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = options.rawBody ?? JSON.stringify(options.body);
  }
  const res = await fetch(`${sim.url}${path}`, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The JSON of a 2xx answer, failing the test with the body otherwise. */
export async function callOk<T = Record<string, unknown>>(
  sim: Pick<RunningSimulator, 'url'>,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<T> {
  const answer = await call(sim, method, path, { body });
  if (answer.status < 200 || answer.status >= 300) {
    throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text}`);
  }
  return answer.json as T;
}

import { activeToken, forgetSharedLink, forgetToken, savedSharedLink } from './session';

/** One problem the API named: `path` is the field (`styles.1`, `manifest.3.gender`), `message` why. */
export interface Issue {
  path: string;
  message: string;
}

/** A refusal from the API, with its message and the fields it named. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues: Issue[],
  ) {
    super(message);
  }
}

/** Called when the API refuses the token, so the console can ask for another. */
let onUnauthorized: () => void = () => undefined;

export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

export function authHeaders(token = activeToken()): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/**
 * Calls the API with the session's token: JSON bodies as JSON, FormData as multipart. Answers the
 * parsed body; a refusal throws an ApiFailure carrying the API's field messages.
 */
export async function callApi<T>(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; token?: string } = {},
): Promise<T> {
  const headers: Record<string, string> = { ...authHeaders(options.token), ...options.headers };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(path, { method, headers, ...(body !== undefined ? { body } : {}) });
  if (response.status === 401) {
    // The credential refused is the one sent: a shared link's while the tab follows one.
    if (savedSharedLink()) forgetSharedLink();
    else forgetToken();
    onUnauthorized();
  }
  return answerOf<T>(response);
}

export async function answerOf<T>(response: Response): Promise<T> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (response.ok) return parsed as T;
  const refusal = (parsed ?? {}) as { error?: unknown; issues?: unknown };
  const message = typeof refusal.error === 'string' ? refusal.error : `The API answered ${response.status}`;
  const issues = Array.isArray(refusal.issues) ? (refusal.issues as Issue[]) : [];
  throw new ApiFailure(response.status, message, issues);
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

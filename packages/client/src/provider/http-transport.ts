import type { z } from 'zod';
import {
  endpointPath,
  PROVIDER_ENDPOINTS,
  type EndpointName,
  type PathParams,
  type ProviderEndpoint,
} from './endpoints';
import {
  ProviderAuthError,
  ProviderBadRequestError,
  ProviderInvalidResponseError,
  ProviderRateLimitedError,
  ProviderTimeoutError,
  ProviderUnavailableError,
  type ProviderError,
  type ProviderErrorDetails,
} from './errors';
import { extractErrorMessage } from './error-body';
import { parseRetryAfter } from './retry-after';
import { InputError } from '../errors';

export interface TransportOptions {
  /** May carry a path prefix (https://host/rest/api): endpoint paths are appended to it. */
  baseUrl: string;
  apiKey: string;
  /** Per-call timeout; a call that exceeds it is "unavailable" and retried by the caller. */
  timeoutMs: number;
  fetch?: typeof fetch;
  /** Observes every call (metrics); must not throw. */
  onCall?: (call: CallRecord) => void;
}

export interface CallRecord {
  method: string;
  /** The endpoint template, e.g. "/order/{id}/status", so metrics stay low-cardinality. */
  endpoint: string;
  outcome: 'ok' | ProviderError['kind'];
  httpStatus?: number;
  durationMs: number;
  /** A 429's Retry-After, in ms, when the provider sent one. */
  retryAfterMs?: number;
  /**
   * The id in a write's answer (the order or image it made), so a trace can tie every provider
   * object to the attempt that made it; absent for reads and for writes that got no answer.
   */
  resultId?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

type RequestBody<N extends EndpointName> = ProviderEndpoint<N>['request'] extends z.ZodType
  ? z.input<ProviderEndpoint<N>['request']>
  : undefined;
type ResponseOf<N extends EndpointName> = z.output<ProviderEndpoint<N>['response']>;

/** One call to an endpoint of the table: its path parameters and, for endpoints that take one, its body. */
export interface Request<N extends EndpointName> {
  endpoint: N;
  params: PathParams<N>;
  body: RequestBody<N>;
}

/** What the transport works with once a request is resolved against the table. */
interface Resolved {
  method: 'GET' | 'POST';
  /** Concrete path, e.g. /order/12/status. */
  path: string;
  /** The path template, e.g. /order/{id}/status: the label in errors and metrics. */
  label: string;
  body: unknown;
  schema: z.ZodType;
  writes: boolean;
}

/** HTTP, auth, timeouts and error classification for every provider call live here and only here. */
export class HttpTransport {
  private readonly base: string;
  private readonly doFetch: typeof fetch;

  constructor(private readonly options: TransportOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.doFetch = options.fetch ?? fetch;
  }

  async send<N extends EndpointName>(request: Request<N>, call: CallOptions = {}): Promise<ResponseOf<N>> {
    const resolved = resolve(request);
    return (await this.perform(resolved, call)) as ResponseOf<N>;
  }

  private async perform(request: Resolved, call: CallOptions): Promise<unknown> {
    const started = performance.now();
    let httpStatus: number | undefined;
    try {
      const { status, text, retryAfter } = await this.exchange(request, call);
      httpStatus = status;
      const result = this.interpret(request, status, text, retryAfter);
      this.record(request, 'ok', httpStatus, started, undefined, request.writes ? idOf(result) : undefined);
      return result;
    } catch (err) {
      const failure = err as Partial<ProviderError> & { retryAfterMs?: number };
      const kind = failure.kind ?? 'unavailable';
      this.record(request, kind, httpStatus ?? failure.httpStatus, started, failure.retryAfterMs);
      throw err;
    }
  }

  private async exchange(request: Resolved, call: CallOptions) {
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.options.apiKey}`,
      Accept: 'application/json',
    };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    try {
      const response = await this.doFetch(this.base + request.path, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        // A redirect's target was never configured: following it would send the key and the body
        // (a selfie) to another host, or take another host's page for the provider's answer.
        redirect: 'manual',
        signal,
      });
      const text = await response.text();
      return { status: response.status, text, retryAfter: response.headers.get('retry-after') };
    } catch (err) {
      if (call.signal?.aborted) throw call.signal.reason ?? err;
      if (timeout.aborted) {
        throw new ProviderTimeoutError(
          `Provider unreachable (no answer within ${timeoutMs} ms)`,
          this.details(request, { cause: err }),
        );
      }
      throw new ProviderUnavailableError(
        `Provider unreachable (${describeNetworkError(err)})`,
        this.details(request, { cause: err }),
      );
    }
  }

  private interpret(request: Resolved, status: number, text: string, retryAfter: string | null): unknown {
    if (status >= 200 && status < 300) return this.parse(request, text, status);
    if (status >= 300 && status < 400) {
      // Neither the target nor the body (which often repeats the target) is quoted: where the
      // provider points is none of an API caller's business, and the operator sees the status.
      throw new ProviderInvalidResponseError(
        'Provider answered with a redirect, which the client does not follow',
        this.details(request, { httpStatus: status }),
      );
    }
    const details = this.details(request, { httpStatus: status, providerMessage: extractErrorMessage(text) });
    if (status === 401 || status === 403)
      throw new ProviderAuthError('Provider refused the API key', details);
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(retryAfter);
      throw new ProviderRateLimitedError('Provider rate limit reached', { ...details, retryAfterMs });
    }
    if (status >= 500 || status === 408) throw new ProviderUnavailableError('Provider unavailable', details);
    if (status >= 400) throw new ProviderBadRequestError('Provider rejected the request', details);
    throw new ProviderInvalidResponseError('Unexpected HTTP status from provider', details);
  }

  private parse(request: Resolved, text: string, status: number): unknown {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      const preview = text.length > 80 ? `${text.slice(0, 80)}…` : text;
      throw new ProviderInvalidResponseError(
        'Provider answered with a body that is not JSON',
        this.details(request, { httpStatus: status, providerMessage: JSON.stringify(preview), cause: err }),
      );
    }
    const parsed = request.schema.safeParse(json);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const path = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    throw new ProviderInvalidResponseError(
      `Provider answered in an unknown shape at "${path}" (${issue?.message ?? 'invalid'})`,
      this.details(request, { httpStatus: status, cause: parsed.error }),
    );
  }

  private details(request: Resolved, extra: Partial<ProviderErrorDetails>): ProviderErrorDetails {
    return { endpoint: request.label, method: request.method, ...extra };
  }

  private record(
    request: Resolved,
    outcome: CallRecord['outcome'],
    httpStatus: number | undefined,
    started: number,
    retryAfterMs?: number,
    resultId?: number,
  ) {
    this.options.onCall?.({
      method: request.method,
      endpoint: request.label,
      outcome,
      httpStatus,
      durationMs: performance.now() - started,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(resultId !== undefined ? { resultId } : {}),
    });
  }
}

function resolve<N extends EndpointName>(request: Request<N>): Resolved {
  const definition: ProviderEndpoint = PROVIDER_ENDPOINTS[request.endpoint];
  let body: unknown = undefined;
  if (definition.request !== undefined) {
    // The client's own input checks are stricter; this guards the wire shape the table names.
    const parsed = definition.request.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw InputError.field(
        ['body', ...(issue?.path ?? []).map(String)].join('.'),
        issue?.message ?? 'is invalid',
      );
    }
    body = parsed.data;
  }
  return {
    method: definition.method,
    path: endpointPath(request.endpoint, request.params),
    label: definition.path,
    body,
    schema: definition.response,
    writes: definition.writes,
  };
}

/** The numeric `id` of an answer, when it has one. */
function idOf(answer: unknown): number | undefined {
  const id = (answer as { id?: unknown } | null)?.id;
  return typeof id === 'number' ? id : undefined;
}

function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

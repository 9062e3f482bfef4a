import { AvatarPipelineError } from '../errors';

/**
 * The one error taxonomy of the provider client (docs/provider-api.md, "Errors"). Activities map `kind` to
 * Temporal retry behaviour in a single place (activities/provider-failure.ts).
 */
export type ProviderErrorKind = 'auth' | 'bad-request' | 'rate-limited' | 'unavailable' | 'invalid-response';

export interface ProviderErrorDetails {
  endpoint: string;
  method: string;
  httpStatus?: number;
  /** The provider's own words, when it gave any. */
  providerMessage?: string;
  cause?: unknown;
}

export abstract class ProviderError extends AvatarPipelineError {
  abstract readonly kind: ProviderErrorKind;
  readonly endpoint: string;
  readonly method: string;
  readonly httpStatus: number | undefined;
  readonly providerMessage: string | undefined;

  constructor(summary: string, details: ProviderErrorDetails) {
    const where = `${details.method} ${details.endpoint}`;
    const status = details.httpStatus === undefined ? '' : ` (HTTP ${details.httpStatus})`;
    const said = details.providerMessage ? `: ${details.providerMessage}` : '';
    super(`${summary}${status} on ${where}${said}`, { cause: details.cause });
    this.endpoint = details.endpoint;
    this.method = details.method;
    this.httpStatus = details.httpStatus;
    this.providerMessage = details.providerMessage;
  }
}

/** 401/403: the API key is missing, wrong or not allowed. Retrying cannot help. */
export class ProviderAuthError extends ProviderError {
  readonly kind = 'auth' as const;
}

/** 400/404/409/413/422: the request itself is wrong for the provider's current state. */
export class ProviderBadRequestError extends ProviderError {
  readonly kind = 'bad-request' as const;
}

/** 429: over quota; `retryAfterMs` comes from the Retry-After header when the provider sent one. */
export class ProviderRateLimitedError extends ProviderError {
  readonly kind = 'rate-limited' as const;
  readonly retryAfterMs: number | undefined;
  constructor(summary: string, details: ProviderErrorDetails & { retryAfterMs?: number }) {
    super(summary, details);
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** 5xx, network failure or timeout: the provider may recover. */
export class ProviderUnavailableError extends ProviderError {
  readonly kind = 'unavailable' as const;
}

/**
 * No answer within the client's timeout. Unlike a 5xx (not performed) or a cut connection (the
 * provider had already answered), the request may still be on its way through the provider and be
 * performed after the client gave up: a write's retry must allow for that before repeating it.
 */
export class ProviderTimeoutError extends ProviderUnavailableError {}

/** A 2xx answer whose body is not JSON or not any shape the provider is known to send, or a redirect (never followed). */
export class ProviderInvalidResponseError extends ProviderError {
  readonly kind = 'invalid-response' as const;
}

import type { ProviderErrorKind } from '@avatar-pipeline/client/provider/errors';

/**
 * The types of the failures provider activities end with (activities/provider-failure.ts), named
 * here so that the activities that raise them and the workflows' retry policies that read them
 * (workflows/activity-proxies.ts) share one list.
 */
export const INVALID_INPUT_FAILURE = 'InvalidInput';

export const providerFailureType = (kind: ProviderErrorKind): `Provider:${ProviderErrorKind}` =>
  `Provider:${kind}`;

/** Provider errors that retrying cannot fix: the key is refused, or the request is wrong. */
export const NON_RETRYABLE_PROVIDER_KINDS: readonly ProviderErrorKind[] = ['auth', 'bad-request'];

/** Failure types no retry policy retries; the activities also mark them non-retryable at the source. */
export const NON_RETRYABLE_FAILURE_TYPES: readonly string[] = [
  INVALID_INPUT_FAILURE,
  ...NON_RETRYABLE_PROVIDER_KINDS.map(providerFailureType),
];

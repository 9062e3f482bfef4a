/**
 * Every failure type the package's workflows and activities end with (`ApplicationFailure.type`):
 * one catalog that the code raising them, the retry policies reading them and the clients telling
 * them apart share, and that docs/contracts.md lists for users. Workflow-safe: constants only.
 */
import type { ProviderErrorKind } from '../provider/errors';

export const FAILURE_TYPES = {
  /** Input the run cannot use (selfies refused by the checks, a bad request); never retried. Details: `{ issues }`. */
  invalidInput: 'InvalidInput',
  /** A write the provider may still perform is retried no sooner than it may have (provider activities). */
  settlingRetry: 'SettlingRetry',
  /** A provider order ended in ERROR. Details: `{ orderId, status, message }`. */
  providerOrderFailed: 'ProviderOrderFailed',
  /** A provider order did not finish within its deadline. Details: `{ orderId, status, progress }`. */
  pollDeadlineExceeded: 'PollDeadlineExceeded',
  /** Every model the pipeline could take was claimed by another pipeline. */
  modelUnavailable: 'ModelUnavailable',
  /** No style of the run ended DONE. Details: `{ modelId, generations }` (what a retry reads). */
  noStyleSucceeded: 'NoStyleSucceeded',
  /** Review approved no style (people, or the deadline). */
  nothingApproved: 'NothingApproved',
  /** Review decisions the gate refused, none taken. Details: `{ issues }`, each naming its field. */
  reviewRefused: 'ReviewRefused',
  /** A start a tenant's hard budget cannot hold (the budget meter's reservation refused it); the API answers 402. */
  budgetExceeded: 'BudgetExceeded',
  /** A campaign's stored manifest could not be read. */
  campaignManifest: 'CampaignManifest',
  /** An avatar to archive is gone at its source; archiving it again cannot help. */
  avatarSourceGone: 'AvatarSourceGone',
  /** An avatar to archive is not an image the archive takes. */
  avatarRejected: 'AvatarRejected',
  /** A webhook delivery's endpoint was removed. */
  webhookEndpointGone: 'WebhookEndpointGone',
  /** A webhook delivery's endpoint is disabled. */
  webhookEndpointDisabled: 'WebhookEndpointDisabled',
  /** Webhooks are not configured on this worker (no signing key). */
  webhookNotConfigured: 'WebhookNotConfigured',
  /** A webhook URL that may not be called (a private address, a bad scheme). */
  webhookRefused: 'WebhookRefused',
  /** A webhook endpoint could not be reached; retried. */
  webhookUnreachable: 'WebhookUnreachable',
  /** A webhook endpoint answered other than 2xx; retried. */
  webhookRejected: 'WebhookRejected',
  /** A redelivery named a delivery the log does not hold. */
  deliveryNotFound: 'DeliveryNotFound',
} as const;
export type FailureType = (typeof FAILURE_TYPES)[keyof typeof FAILURE_TYPES];

/** A provider activity's failure: `Provider:<kind>` of the provider client's error taxonomy. */
export const providerFailureType = (kind: ProviderErrorKind): `Provider:${ProviderErrorKind}` =>
  `Provider:${kind}`;

/** Provider errors that retrying cannot fix: the key is refused, or the request is wrong. */
export const NON_RETRYABLE_PROVIDER_KINDS: readonly ProviderErrorKind[] = ['auth', 'bad-request'];

/** Failure types no retry policy retries; the activities also mark them non-retryable at the source. */
export const NON_RETRYABLE_FAILURE_TYPES: readonly string[] = [
  FAILURE_TYPES.invalidInput,
  ...NON_RETRYABLE_PROVIDER_KINDS.map(providerFailureType),
];

/** Archiving failures that no retry can mend. */
export const FINAL_ARCHIVE_FAILURES: readonly string[] = [
  FAILURE_TYPES.avatarSourceGone,
  FAILURE_TYPES.avatarRejected,
];

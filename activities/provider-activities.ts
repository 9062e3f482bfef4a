import type { ImageAccessPolicy } from '../src/images/image-access';
import { AvatarPageStart } from '../src/avatar-pages/avatar-page-start';
import type { ProviderClient } from '@avatar-pipeline/client/provider/client';
import {
  DEFAULT_PROVIDER_TIMEOUT_MS,
  DEFAULT_PROVIDER_WRITE_SETTLE_MS,
} from '@avatar-pipeline/client/config/env-schema';
import { createAvatarPageActivities } from './provider-avatar-activities';
import { createModelActivities } from './provider-model-activities';
import { createOrderActivities } from './provider-order-activities';
import { writeAttempts } from './provider-write-attempt';
import type { MeterOrder } from './order-meter';

export interface ActivityDependencies {
  provider: ProviderClient;
  imageAccess: ImageAccessPolicy;
  /** Identifies the provider account in claim ids, so two providers' order ids never collide. */
  providerScope: string;
  /** PROVIDER_WRITE_SETTLE_MS: how long a timed-out write may still be performed; its retry waits that long. */
  writeSettleMs?: number;
  /** PROVIDER_TIMEOUT_MS: how long a write sent just before its attempt ended may still be on its way. */
  providerTimeoutMs?: number;
  /** Where the provider's avatar pages start, as this worker learns from its reads; its own by default. */
  pageStart?: AvatarPageStart;
  /** Tells the tenants' budget meters of each order (orderMeter); by default nothing is metered. */
  meterOrder?: MeterOrder;
}

/**
 * Creates, uploads and runs are not idempotent at the provider. Every write follows one rule:
 * the first attempt writes; any later attempt (the earlier one may have committed and then lost
 * its answer, or its worker died) first looks at the provider's lists or status for the write it
 * may already have made, unless the attempt just before it left a WriteRefused mark. And it looks
 * only once that write has had time to land: an attempt whose write may still be on its way ends
 * asking for a retry no sooner than PROVIDER_WRITE_SETTLE_MS later (UnsettledWriteError), and an
 * attempt that follows one which ended without a mark (the server timed it out, its worker died)
 * sends nothing and asks for a retry after PROVIDER_TIMEOUT_MS plus PROVIDER_WRITE_SETTLE_MS
 * (SettlingRetryError).
 *
 * The activities come from one factory per kind of call: the model and its training
 * (provider-model-activities.ts), orders (provider-order-activities.ts) and avatar pages
 * (provider-avatar-activities.ts); the rule is writeAttempts (provider-write-attempt.ts).
 */
export function createProviderActivities({
  provider,
  imageAccess,
  providerScope,
  writeSettleMs = DEFAULT_PROVIDER_WRITE_SETTLE_MS,
  providerTimeoutMs = DEFAULT_PROVIDER_TIMEOUT_MS,
  pageStart = new AvatarPageStart(),
  meterOrder = async () => {},
}: ActivityDependencies) {
  const writeAttempt = writeAttempts({ writeSettleMs, providerTimeoutMs });
  return {
    ...createModelActivities({ provider, imageAccess, providerScope, writeAttempt, meterOrder }),
    ...createOrderActivities({ provider, writeAttempt, meterOrder }),
    ...createAvatarPageActivities({ provider, pageStart }),
  };
}

export type ProviderActivities = ReturnType<typeof createProviderActivities>;

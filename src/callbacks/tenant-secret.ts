import { createHmac } from 'node:crypto';
import { keyOfSecret, whsecOf } from '../webhooks/standard-signature';

/**
 * Each tenant's callbackUrl deliveries are signed with a secret of its own, derived, never stored:
 * HMAC-SHA256 keyed by the operator's CALLBACK_SIGNING_SECRET over the tenant id, in `whsec_`
 * form. A tenant reads its secret from GET /v1/callbacks/secret; knowing it tells nothing about
 * another tenant's, so no tenant can sign a callback another tenant's receiver accepts.
 */
export function tenantCallbackSecret(operatorSecret: string, tenant: string): string {
  return whsecOf(
    createHmac('sha256', keyOfSecret(operatorSecret)).update(`callback-signing\0${tenant}`).digest(),
  );
}

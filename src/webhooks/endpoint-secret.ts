import { createHmac } from 'node:crypto';
import { whsecOf } from './standard-signature';

/**
 * An endpoint's signing key is derived, never stored: HMAC-SHA256 of the server's
 * WEBHOOK_SIGNING_KEY over the tenant, the endpoint id and the secret's generation. The API shows
 * the `whsec_` form once, when the endpoint is made (or its secret rotated); workers derive the
 * same key at each attempt. No secret is written to the store, to workflow input or to history,
 * and rotating means counting the generation up.
 */
export function endpointKey(
  serverKey: string,
  tenant: string,
  endpointId: string,
  generation: number,
): Buffer {
  return createHmac('sha256', serverKey)
    .update(`webhook-endpoint\0${tenant}\0${endpointId}\0${generation}`)
    .digest();
}

export function endpointSecret(
  serverKey: string,
  tenant: string,
  endpointId: string,
  generation: number,
): string {
  return whsecOf(endpointKey(serverKey, tenant, endpointId, generation));
}

import { createHmac } from 'node:crypto';

/*
 * Standard Webhooks (https://www.standardwebhooks.com): every delivery carries `webhook-id` (the
 * same for every attempt of one message), `webhook-timestamp` (unix seconds of this attempt) and
 * `webhook-signature`, a space separated list of `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
 * one per secret in use. Receivers hold the secret as `whsec_<base64 key>` and verify with any
 * Standard Webhooks library.
 */

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
const SECRET_PREFIX = 'whsec_';

/** A signing key as receivers write it: `whsec_` and the key's bytes in base64. */
export function whsecOf(key: Buffer): string {
  return `${SECRET_PREFIX}${key.toString('base64')}`;
}

/**
 * The key bytes of a configured secret: a `whsec_…` value is decoded, any other text is its
 * UTF-8 bytes (so a receiver of such a secret verifies with `whsec_` + base64 of that text).
 */
export function keyOfSecret(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX)
    ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

export interface SignedMessage {
  /** Stable across every attempt of one message. */
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** The exact bytes sent as the request body. */
  body: string;
}

/** `v1,<base64>` of one key over `id.timestamp.body`. */
export function signatureOf(message: SignedMessage, key: Buffer): string {
  const digest = createHmac('sha256', key)
    .update(`${message.id}.${message.timestamp}.`)
    .update(Buffer.from(message.body, 'utf8'))
    .digest('base64');
  return `v1,${digest}`;
}

/**
 * The three Standard Webhooks headers. With two keys (a secret being rotated), both signatures
 * are sent, so receivers holding either secret accept the delivery during the overlap.
 */
export function standardWebhookHeaders(
  message: SignedMessage,
  keys: readonly Buffer[],
): Record<string, string> {
  if (keys.length === 0) throw new Error('a webhook needs at least one signing key');
  return {
    [WEBHOOK_ID_HEADER]: message.id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(message.timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: keys.map((key) => signatureOf(message, key)).join(' '),
  };
}

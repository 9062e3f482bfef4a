import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Callbacks carry `X-Avatar-Signature: t=<unix seconds>,v1=<hex>`, where the hex is
 * HMAC-SHA256(secret, `${t}.${body}`) over the exact bytes of the request body. The timestamp is
 * signed too, so a captured request cannot be replayed later than the receiver's tolerance.
 */
export const SIGNATURE_HEADER = 'X-Avatar-Signature';
const SIGNATURE_VERSION = 'v1';
/** How old (or how far in the future) a signature may be by default, in seconds. */
const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

function digest(secret: string, timestamp: number, body: string | Uint8Array): string {
  return createHmac('sha256', secret)
    .update(`${timestamp}.`)
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('hex');
}

/** The header value for `body` sent at `timestamp` (unix seconds). */
export function signCallback(body: string | Uint8Array, secret: string, timestamp: number): string {
  return `t=${timestamp},${SIGNATURE_VERSION}=${digest(secret, timestamp, body)}`;
}

export interface VerifyOptions {
  toleranceSeconds?: number;
  /** Current time in milliseconds. */
  now?: number;
}

/**
 * True when `header` signs `body` (the raw request body, before any JSON parsing) with `secret`
 * within the tolerance. Several v1 values are accepted, so a sender can sign with two secrets while
 * rotating. Comparison is constant-time.
 */
export function verifyCallbackSignature(
  header: string | undefined | null,
  body: string | Uint8Array,
  secret: string,
  options: VerifyOptions = {},
): boolean {
  if (!header) return false;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && value && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === SIGNATURE_VERSION && value && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  const tolerance = options.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - timestamp) > tolerance) return false;
  const expected = Buffer.from(digest(secret, timestamp, body), 'hex');
  let match = false;
  for (const signature of signatures) {
    // Every candidate is compared, so the time taken does not tell which one matched.
    match = timingSafeEqual(expected, Buffer.from(signature, 'hex')) || match;
  }
  return match;
}

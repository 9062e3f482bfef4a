import { createHmac, timingSafeEqual } from 'node:crypto';
import { isValidKey, MAX_KEY_LENGTH } from '@avatar-pipeline/client/storage/blob-keys';

/** Digits of an expiry in epoch seconds, enough for any date a link may carry. */
const MAX_EXPIRY_DIGITS = 12;
/** An HMAC-SHA256 in base64url. */
const MAC_LENGTH = 43;

/**
 * The longest token `sign` makes: the longest valid key in base64url, the expiry and the MAC.
 * The route that takes tokens accepts path parameters up to this long, so every link opens.
 */
export const MAX_LINK_TOKEN_LENGTH =
  Math.ceil((MAX_KEY_LENGTH * 4) / 3) + 1 + MAX_EXPIRY_DIGITS + 1 + MAC_LENGTH;

/**
 * Expiring links to objects a backend cannot sign itself (the filesystem): the API hands out
 * `<key, expiry, HMAC>` tokens and serves the object to whoever presents a valid one, the way a
 * presigned S3 URL works. Tokens are opaque to clients and carry no personal data (keys hold hashes).
 */
export class BlobLinkSigner {
  private readonly secret: Buffer;

  constructor(secret: string | Buffer) {
    this.secret = Buffer.isBuffer(secret) ? secret : Buffer.from(secret, 'utf8');
    if (this.secret.length < 16) throw new Error('the link signing secret must be at least 16 bytes');
  }

  /** A token for `key`, valid until `expiresAtMs` (epoch milliseconds). */
  sign(key: string, expiresAtMs: number): string {
    if (!isValidKey(key)) throw new Error(`invalid blob key "${key}"`);
    const payload = `${Buffer.from(key, 'utf8').toString('base64url')}.${Math.floor(expiresAtMs / 1000)}`;
    return `${payload}.${this.mac(payload)}`;
  }

  /** The key a token names, or undefined when it is malformed, forged or expired. */
  verify(token: string, nowMs = Date.now()): string | undefined {
    if (token.length > MAX_LINK_TOKEN_LENGTH) return undefined;
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [encodedKey = '', expires = '', mac = ''] = parts;
    const expected = Buffer.from(this.mac(`${encodedKey}.${expires}`), 'utf8');
    const given = Buffer.from(mac, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    if (!/^\d+$/.test(expires) || Number(expires) * 1000 <= nowMs) return undefined;
    const key = Buffer.from(encodedKey, 'base64url').toString('utf8');
    return isValidKey(key) ? key : undefined;
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.secret).update(payload, 'utf8').digest('base64url');
  }
}

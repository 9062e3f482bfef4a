/** One AES-256 key and the id written into every payload it encrypts. */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/** Payload encryption as configured: the key new payloads get, and every key old payloads may carry. */
export interface EncryptionConfig {
  /** Id of the key that encrypts (ENCRYPTION_KEY_ID). */
  currentKeyId: string;
  /** Every known key (ENCRYPTION_KEYS), the current one included; any of them decrypts. */
  keys: EncryptionKey[];
}

export const KEY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const KEY_BYTES = 32;

export type ParsedKeys = { ok: true; keys: EncryptionKey[] } | { ok: false; reason: string };

/**
 * Parses `id1:base64key,id2:base64key`. Each key is 32 random bytes in base64 (e.g. from
 * `openssl rand -base64 32`). The reason never quotes key material.
 */
export function parseEncryptionKeys(text: string): ParsedKeys {
  const keys: EncryptionKey[] = [];
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    if (colon < 0) return { ok: false, reason: `entry ${index + 1} must look like id:base64key` };
    const id = entry.slice(0, colon).trim();
    const encoded = entry.slice(colon + 1).trim();
    if (!KEY_ID_PATTERN.test(id)) {
      return {
        ok: false,
        reason: `entry ${index + 1}: key id must be 1-64 letters, digits, "_", "." or "-" (starting with a letter or digit)`,
      };
    }
    if (keys.some((k) => k.id === id)) return { ok: false, reason: `key id "${id}" appears twice` };
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) {
      return { ok: false, reason: `key "${id}" is not base64` };
    }
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== KEY_BYTES) {
      return {
        ok: false,
        reason: `key "${id}" must be ${KEY_BYTES} bytes (base64 of 32 random bytes), got ${key.length}`,
      };
    }
    keys.push({ id, key });
  }
  if (keys.length === 0) return { ok: false, reason: 'must name at least one key' };
  return { ok: true, keys };
}

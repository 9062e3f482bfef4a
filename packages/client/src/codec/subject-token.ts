import { createHmac, hkdfSync } from 'node:crypto';
import type { EncryptionConfig, EncryptionKey } from './encryption-keys';

const TOKEN_CONTEXT = 'avatar-pipeline subject search token v1';

/**
 * What goes into the SubjectId search attribute when payloads are encrypted: search attributes
 * are stored in plaintext, so the subject id is replaced by a keyed hash. Equal subjects give
 * equal tokens under one key, so operators can still find a subject's runs (see
 * subjectSearchTokens), while the server never sees the id. Format: `<keyId>.<22 base64url chars>`.
 */
export function subjectSearchToken(config: EncryptionConfig, subjectId: string): string {
  const key = config.keys.find((k) => k.id === config.currentKeyId);
  if (!key) throw new Error(`Encryption key "${config.currentKeyId}" is not configured`);
  return tokenUnder(key, subjectId);
}

/** The subject's token under every configured key: runs started before a key rotation carry the older ones. */
export function subjectSearchTokens(config: EncryptionConfig, subjectId: string): string[] {
  return config.keys.map((key) => tokenUnder(key, subjectId));
}

function tokenUnder({ id, key }: EncryptionKey, subjectId: string): string {
  // A key of its own, derived from the encryption key, so the hash never reuses the cipher key.
  const hashKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), TOKEN_CONTEXT, 32));
  const digest = createHmac('sha256', hashKey).update(subjectId, 'utf8').digest('base64url');
  return `${id}.${digest.slice(0, 22)}`;
}

/**
 * The `temporal workflow list --query` (and Temporal UI) filter that finds a subject's runs:
 * the plain id without encryption, else its token under every configured key.
 */
export function subjectSearchQuery(config: EncryptionConfig | undefined, subjectId: string): string {
  if (!config) {
    if (/['"\\]/.test(subjectId))
      throw new Error('a subject id with quotes or backslashes cannot be put in a query');
    return `SubjectId = '${subjectId}'`;
  }
  const tokens = subjectSearchTokens(config, subjectId);
  return tokens.length === 1
    ? `SubjectId = '${tokens[0]}'`
    : `SubjectId IN (${tokens.map((t) => `'${t}'`).join(', ')})`;
}

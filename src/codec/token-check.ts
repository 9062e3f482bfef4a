import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether `presented` is one of `tokens`, in time that does not depend on where they differ:
 * both sides are hashed to equal length first, and every token is compared.
 */
export function isKnownToken(presented: string, tokens: readonly string[]): boolean {
  const digest = sha256(presented);
  let match = false;
  for (const token of tokens) {
    if (timingSafeEqual(digest, sha256(token))) match = true;
  }
  return match;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Whether `text` holds `secret` as is, or inside any Base64 run in it: exported histories print
 * payloads as Base64 of their JSON, so a secret inside a payload is only seen once decoded.
 */
export function mentions(text: string, secret: string): boolean {
  if (text.includes(secret)) return true;
  for (const match of text.matchAll(/[A-Za-z0-9+/]{8,}={0,2}/g)) {
    if (Buffer.from(match[0], 'base64').toString('utf8').includes(secret)) return true;
  }
  return false;
}

/**
 * Fragments that would show `bytes` (say, a selfie) written into text in any of the usual forms:
 * Base64 at each of the three byte alignments (a file's bytes embedded in a larger Base64 string,
 * or a payload holding the raw bytes, which exports print as Base64), hex, and a JSON array of
 * numbers (a serialized Buffer). Each fragment comes from inside the data, past any file header
 * that every image of its type shares.
 */
export function byteFragments(bytes: Buffer, skip = 64, length = 48): string[] {
  const fragments: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const base64 = bytes.subarray(shift).toString('base64');
    fragments.push(base64.slice(skip * 2, skip * 2 + length * 2));
  }
  const inner = bytes.subarray(skip, skip + length);
  fragments.push(inner.toString('hex'), Array.from(inner).join(','));
  return fragments;
}

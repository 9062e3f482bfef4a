import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { PipelineInput } from '@avatar-pipeline/client/contracts/pipeline-input';

/** Becomes part of the workflow id (`avatar-pipeline-<key>`), so it is limited to URL- and id-safe characters. */
export const idempotencyKeySchema = z
  .string()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .regex(/^[A-Za-z0-9._:-]+$/, 'may only contain letters, digits and . _ : -')
  .describe(
    'Repeating a request with the same key answers the run the first one started instead of starting another',
  );

/**
 * A digest of what a request asks for, kept in the run's memo: a repeated Idempotency-Key with a
 * different request is refused instead of silently answering a run that does something else.
 * Uploaded selfies count by content (their stored paths differ every time), references by value.
 */
export function requestFingerprint(input: PipelineInput, imageIdentities: string[]): string {
  const canonical = canonicalJson({ ...input, images: imageIdentities });
  return createHash('sha256').update(canonical).digest('hex');
}

/** The same digest for any validated request whose images (if any) are references, taken by value. */
export function fingerprintOf(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

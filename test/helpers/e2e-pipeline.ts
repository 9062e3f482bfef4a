import { randomUUID } from 'node:crypto';
import type { PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';

/**
 * Polling for end-to-end tests on wall-clock simulators whose orders finish within seconds:
 * the product's defaults (5 s first wait) would make every test wait for nothing.
 */
export const FAST_POLLING: PollingOptions = {
  initialIntervalMs: 300,
  minIntervalMs: 200,
  maxIntervalMs: 1_000,
  backoffCoefficient: 1.5,
};

/**
 * A simulator base path no other test uses. Claim workflow ids name the provider by host and
 * path, and a later simulator in the same run may get a port an earlier one had: with its ids
 * starting again at 1, it would find its models already claimed on the shared dev server.
 */
export function uniqueBasePath(prefix: string): string {
  return `/${prefix}-${randomUUID().slice(0, 8)}`;
}

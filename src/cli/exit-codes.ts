import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { InputError } from '@avatar-pipeline/client/errors';

/** Exit codes of the `avatar-pipeline` command and the worker's entry point (docs/contracts.md). */
export const EXIT = {
  ok: 0,
  /** The pipeline or campaign failed, or anything else went wrong. */
  failed: 1,
  /** Bad input or configuration; the message names the field and why. */
  badInput: 2,
  /** Stopped by Ctrl-C (SIGINT), by shell convention. */
  interrupted: 130,
} as const;

/** The one mapping from an error to an exit code: bad input or configuration is 2, anything else 1. */
export function exitCodeFor(err: unknown): number {
  return err instanceof ConfigError || err instanceof InputError ? EXIT.badInput : EXIT.failed;
}

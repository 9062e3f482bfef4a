import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { EXIT } from './exit-codes';
import { writeLines } from './printable';
import { InputError } from '@avatar-pipeline/client/errors';

/** Maps an error to the message a user sees and the exit code of docs/contracts.md. */
export function exitCodeFor(err: unknown): number {
  return err instanceof ConfigError || err instanceof InputError || err instanceof InputError
    ? EXIT.badInput
    : EXIT.failed;
}

export function reportError(err: unknown): void {
  writeLines(process.stderr, `avatar-pipeline: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = exitCodeFor(err);
}

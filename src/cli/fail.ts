import { exitCodeFor } from './exit-codes';
import { writeLines } from './printable';

/** Writes the error's message for the user and sets the exit code of docs/contracts.md (exitCodeFor). */
export function reportError(err: unknown): void {
  writeLines(process.stderr, `avatar-pipeline: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = exitCodeFor(err);
}

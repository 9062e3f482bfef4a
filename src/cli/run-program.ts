import { CommanderError, type Command } from 'commander';
import { EXIT } from './exit-codes';
import { writeLines } from './printable';

/**
 * Runs a command-line program to its exit code: help and version exit 0, every usage error is bad
 * input (2), and anything a command throws is a failure (1) with its message on stderr.
 */
export async function runProgram(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.badInput;
      return;
    }
    writeLines(process.stderr, err instanceof Error ? err.message : String(err));
    process.exitCode = EXIT.failed;
  }
}

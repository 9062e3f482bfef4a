import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { reportError } from '../fail';
import { printableJson, writeLines } from '../printable';

export function registerStylesCommand(program: Command): void {
  program
    .command('styles')
    .description("List the provider's public styles")
    .option('--json', 'print one JSON array of styles (id, name and any further fields the provider sends)')
    .addHelpText(
      'after',
      '\nAsks the provider at PROVIDER_BASE_URL (default: the local simulator, `avatar-pipeline simulator`).\nExit codes: 0 listed, 1 provider unreachable or failing, 2 bad configuration.',
    )
    .action(async (options: { json?: boolean }) => {
      try {
        const { provider } = loadConfig();
        const styles = await new ProviderClient(provider).listStyles();
        if (options.json) process.stdout.write(printableJson(styles));
        else for (const s of styles) writeLines(process.stdout, `${String(s.id).padStart(5)}  ${s.name}`);
      } catch (err) {
        reportError(err);
      }
    });
}

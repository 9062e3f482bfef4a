import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config';
import { ProviderClient } from '../../provider/client';
import { reportError } from '../fail';

export function registerStylesCommand(program: Command): void {
  program
    .command('styles')
    .description("List the provider's public styles")
    .option('--json', 'print one JSON document')
    .action(async (options: { json?: boolean }) => {
      try {
        const { provider } = loadConfig();
        const styles = await new ProviderClient(provider).listStyles();
        if (options.json) process.stdout.write(`${JSON.stringify(styles, null, 2)}\n`);
        else for (const s of styles) console.log(`${String(s.id).padStart(5)}  ${s.name}`);
      } catch (err) {
        reportError(err);
      }
    });
}

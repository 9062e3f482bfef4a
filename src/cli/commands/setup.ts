import { InvalidArgumentError, type Command } from 'commander';
import { msToNumber } from '@temporalio/common/lib/time';
import { loadConfig } from '../../config/load-config';
import { setupNamespace } from '../../setup/setup-namespace';
import { reportError } from '../fail';

export function registerSetupCommand(program: Command): void {
  program
    .command('setup')
    .description(
      "Prepare a Temporal cluster for pipelines (idempotent): register the namespace if missing and the package's search attributes (SubjectId, CampaignId, ModelId, PipelineStage)",
    )
    .option(
      '--retention <duration>',
      'history retention of a namespace registered here, e.g. 72h or 7d',
      parseRetention,
      3 * 24 * 60 * 60 * 1000,
    )
    .addHelpText(
      'after',
      '\nUses TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and the TLS / API key settings. The local dev server started by this package already has the search attributes.\nExit codes: 0 ready, 1 the cluster refused or could not be reached, 2 bad configuration.',
    )
    .action(async (options: { retention: number }) => {
      try {
        const { temporal } = loadConfig();
        const log = (message: string): void =>
          void process.stderr.write(`avatar-pipeline setup: ${message}\n`);
        log(`preparing namespace ${temporal.namespace} on ${temporal.address}`);
        const { searchAttributes } = await setupNamespace(temporal, {
          retention: options.retention,
          log,
        });
        log(`ready: namespace ${temporal.namespace} with search attributes ${searchAttributes.join(', ')}`);
      } catch (err) {
        reportError(err);
      }
    });
}

function parseRetention(value: string): number {
  let ms: number;
  try {
    ms = msToNumber(value as `${number}h`);
  } catch {
    throw new InvalidArgumentError('must be a duration such as 24h or 7d');
  }
  if (!Number.isFinite(ms) || ms < 60 * 60 * 1000) throw new InvalidArgumentError('must be at least 1h');
  return ms;
}

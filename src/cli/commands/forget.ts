import type { Command } from 'commander';
import { forgetSubject, type ForgetReport } from '@avatar-pipeline/client/erasure/forget-subject';
import { createPipelineClient } from '@avatar-pipeline/client/client/pipeline-client';
import { loadConfig } from '../../config/load-config';
import { openBlobStore } from '../../storage';
import { reportError } from '../fail';
import { printableJson, printableLines } from '../printable';
import { tenantOption } from '../tenant-flag';

export function registerForgetCommand(program: Command): void {
  program
    .command('forget')
    .description(
      'Erase a subject: cancel their open pipelines, delete their stored selfies and archived avatars',
    )
    .argument('<subjectId>', 'the subject id the pipelines were started with')
    .addOption(tenantOption("subject it is (another tenant's subject of the same id is left alone)"))
    .option('--json', 'print the report as one JSON document')
    .addHelpText(
      'after',
      '\nThe provider offers no way to delete, so the report lists the model and order ids it still holds.\nTheir runs are deleted from Temporal and their campaign entries erased; repeating the command is harmless. Exit codes: 0 done, 2 bad configuration, 1 failure.',
    )
    .action(async (subjectId: string, options: { json?: boolean; tenant: string }) => {
      try {
        const config = loadConfig();
        const store = openBlobStore(config.storage!);
        const pipelines = await createPipelineClient();
        try {
          const report = await forgetSubject(pipelines.temporal, store, subjectId, {
            tenant: options.tenant,
            // The audit line names the subject only by its hash.
            audit: (entry) => process.stderr.write(printableJson(entry, 0)),
          });
          process.stdout.write(
            options.json ? printableJson(report) : `${printableLines(describe(report))}\n`,
          );
        } finally {
          store.close();
          await pipelines.close();
        }
      } catch (err) {
        reportError(err);
      }
    });
}

function describe(report: ForgetReport): string {
  const { modelIds, orderIds } = report.providerHeld;
  return [
    `subject ${report.subject}: ${report.storedObjects} stored objects left`,
    `runs: ${report.runs.length === 0 ? 'none' : report.runs.map((r) => `${r.workflowId} (${r.status})`).join(', ')}`,
    `webhook deliveries erased: ${report.webhookDeliveries} (redelivery runs: ${report.webhookRedeliveries})`,
    `the provider cannot delete and still holds models [${modelIds.join(', ')}] and orders [${orderIds.join(', ')}]`,
  ].join('\n');
}

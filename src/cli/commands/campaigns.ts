import { openBlobStoreFromEnv } from '@avatar-pipeline/client/storage/env-blob-store';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Client } from '@temporalio/client';
import type { Command } from 'commander';
import { loadStarterSettings } from '@avatar-pipeline/client/config/starter-settings';
import {
  campaignWorkflowIdOf,
  getCampaign,
  type CampaignHandle,
} from '@avatar-pipeline/client/campaign/campaigns';
import { tenantOption } from '../tenant-flag';
import { connectClient } from '@avatar-pipeline/client/client/connect';
import { describeCampaignProgress, formatEta, summarize } from '../campaign-view';
import { EXIT } from '../exit-codes';
import { reportCampaignError } from '../campaign-errors';
import { printableJson, printableLines, writeLines } from '../printable';
import { InputError } from '@avatar-pipeline/client/errors';
import { exportResults } from '../../campaign/export-results';
import { campaignReviews, type CampaignReviewsFlags } from './campaign-reviews';

/** `avatar-pipeline campaigns <action> <campaignId>`: look at and steer a campaign already started. */
export function registerCampaignsCommand(program: Command): void {
  const campaigns = program
    .command('campaigns')
    .description('Look at and steer campaigns: status, pause, resume, cancel, retry, results');

  campaigns
    .command('status <campaignId>')
    .description('Progress (counts by state, rate, ETA) and, with --json, the summary so far')
    .option('--json', 'print the campaign summary (subjects and their outcomes) as JSON')
    .addOption(campaignTenant())
    .action((named: string, options: { json?: boolean; tenant: string }) =>
      withCampaign(named, options.tenant, async (campaign) => {
        const { campaignId } = campaign;
        if (options.json) {
          process.stdout.write(printableJson(await campaign.summary()));
          return EXIT.ok;
        }
        // One describe: the campaign's status, and the progress it recorded in its memo.
        const description = await campaign.raw.describe();
        const status = description.status.name;
        const progress = await campaign.progress(description).catch((err: unknown) => {
          // A campaign that failed or was terminated has no progress to ask for: say how it ended.
          if (status === 'RUNNING' || status === 'COMPLETED') throw err;
          return undefined;
        });
        if (!progress) {
          writeLines(process.stdout, `${campaignId}: ${status.toLowerCase()}`);
          return EXIT.failed;
        }
        writeLines(process.stdout, `${campaignId}: ${describeCampaignProgress(progress)}`);
        if (progress.etaMs !== undefined && progress.state === 'running')
          writeLines(process.stdout, `  estimated finish in ${formatEta(progress.etaMs)}`);
        for (const f of progress.recentFailures) writeLines(process.stdout, `  ✗ ${f.subjectId}: ${f.error}`);
        return EXIT.ok;
      }),
    );

  for (const action of ['pause', 'resume', 'cancel'] as const) {
    campaigns
      .command(`${action} <campaignId>`)
      .description(
        action === 'pause'
          ? 'Start no more subjects (running ones finish)'
          : action === 'resume'
            ? 'Start subjects again after a pause'
            : 'Cancel the running subjects and start no more; the campaign ends with its summary',
      )
      .addOption(campaignTenant())
      .action((named: string, options: { tenant: string }) =>
        withCampaign(named, options.tenant, async (campaign) => {
          const progress = await campaign[action]();
          writeLines(process.stdout, `${campaign.campaignId}: ${describeCampaignProgress(progress)}`);
          return EXIT.ok;
        }),
      );
  }

  campaigns
    .command('retry <campaignId> [subjectIds...]')
    .description(
      'Run failed or cancelled subjects again (all of them, or those named); restarts an ended campaign',
    )
    .addOption(campaignTenant())
    .action((named: string, subjectIds: string[], options: { tenant: string }) =>
      withCampaign(named, options.tenant, async (campaign) => {
        const report = await campaign.retry(subjectIds.length > 0 ? subjectIds : undefined);
        writeLines(
          process.stdout,
          `${campaign.campaignId}: ${report.queued.length} subject(s) queued to run again`,
        );
        return EXIT.ok;
      }),
    );

  campaigns
    .command('results <campaignId>')
    .description('Every avatar so far: subject, style, avatar id, image URL')
    .option('--format <csv|jsonl>', 'output format', 'csv')
    .option('--out <file>', 'write to a file instead of stdout')
    .addOption(campaignTenant())
    .action((named: string, options: { format: string; out?: string; tenant: string }) =>
      withCampaign(named, options.tenant, async (campaign) => {
        if (options.format !== 'csv' && options.format !== 'jsonl')
          throw InputError.field('--format', `"${options.format}" must be csv or jsonl`);
        const out = options.out ? createWriteStream(options.out) : process.stdout;
        for await (const chunk of exportResults(campaign.resultRows(), options.format)) {
          if (!out.write(chunk)) await once(out, 'drain');
        }
        if (out !== process.stdout) {
          out.end();
          await once(out, 'finish');
        }
        return EXIT.ok;
      }),
    );

  campaigns
    .command('reviews <campaignId>')
    .description("List the campaign's runs held for review, or decide on all of them at once")
    .option('--approve-all', 'approve every style each listed run has under review')
    .option('--reject-all', 'reject every style each listed run has under review')
    .option('--limit <n>', 'at most this many runs (1-1000)', '100')
    .option('--json', 'print one JSON document: the runs waiting, or each run\u2019s outcome')
    .addOption(campaignTenant())
    .addHelpText(
      'after',
      [
        '',
        'One run at a time: avatar-pipeline review <workflowId> --approve 3,7 --regenerate 12',
        'Exit codes: 0 listed or every run decided, 2 a run refused (named on stderr) or bad flags, 1 Temporal unreachable.',
      ].join('\n'),
    )
    .action((named: string, options: CampaignReviewsFlags) =>
      withCampaign(named, options.tenant, (campaign, client) => campaignReviews(client, campaign, options)),
    );

  campaigns
    .command('summary <campaignId>')
    .description('Wait for the campaign to end and print its summary')
    .option('--json', 'print the summary as JSON')
    .addOption(campaignTenant())
    .action((named: string, options: { json?: boolean; tenant: string }) =>
      withCampaign(named, options.tenant, async (campaign) => {
        const summary = await campaign.result();
        process.stdout.write(
          options.json ? printableJson(summary) : `${printableLines(summarize(summary))}\n`,
        );
        return summary.failed + summary.partial + summary.cancelled === 0 ? EXIT.ok : EXIT.failed;
      }),
    );
}

/** `--tenant`: whose campaign the id names (the id chosen at the start is the tenant's). */
function campaignTenant() {
  return tenantOption('campaign it is: the id is the one chosen at the start, or the whole <tenant>.<id>');
}

/** Runs `body` on the campaign `named` (the id chosen at its start, or its whole id) of `tenant`. */
async function withCampaign(
  named: string,
  tenant: string,
  body: (campaign: CampaignHandle, client: Client) => Promise<number>,
): Promise<void> {
  try {
    const settings = loadStarterSettings();
    const store = openBlobStoreFromEnv();
    const client = await connectClient(settings.temporal).catch((err: unknown) => {
      store.close();
      throw err;
    });
    try {
      const campaignId = await campaignWorkflowIdOf(client, tenant, named);
      process.exitCode = await body(getCampaign(client, campaignId, { store }), client);
    } finally {
      store.close();
      await client.connection.close();
    }
  } catch (err) {
    reportCampaignError(err);
  }
}

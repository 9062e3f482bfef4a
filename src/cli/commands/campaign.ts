import { pricingFromEnv } from '../cli-pricing';
import { openBlobStoreFromEnv } from '@avatar-pipeline/client/storage/env-blob-store';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Command } from 'commander';
import { describeIssue, loadManifestFile, ManifestError, type ModelCheck } from '../../campaign/manifest';
import { startCampaign, type CampaignHandle } from '@avatar-pipeline/client/campaign/campaigns';
import { manifestModelCheck } from '../../campaign/manifest/model-check';
import { askOfferedStyles } from '../../operations/offered-styles';
import { connectClient } from '@avatar-pipeline/client/client/connect';
import { tenantOption } from '../tenant-flag';
import type {
  CampaignOptions,
  OperatorCampaignOption,
} from '@avatar-pipeline/client/contracts/campaign/campaign';
import {
  campaignShare,
  type OperatorCampaignChoice,
} from '@avatar-pipeline/client/contracts/campaign/campaign-share';
import { DEFAULT_TENANT, tenantSettingsOf } from '../../config/tenants';
import { loadConfig } from '../../config/load-config';
import { loadStarterSettings } from '@avatar-pipeline/client/config/starter-settings';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { campaignViewFor, summarize, type CampaignView } from '../campaign-view';
import { reportCampaignError } from '../campaign-errors';
import { EXIT } from '../exit-codes';
import { rootMessage } from '../root-message';
import { printableJson, printableLines, writeLines } from '../printable';
import { InputError } from '@avatar-pipeline/client/errors';
import { exportResults } from '../../campaign/export-results';

export interface CampaignCommandOptions {
  /** --tenant (commander fills in `default`). */
  tenant?: string;
  manifest: string;
  json?: boolean;
  maxInFlight?: string;
  fixedWindow?: boolean;
  skipInvalid?: boolean;
  campaignId?: string;
  subjectsPerRun?: string;
  priority?: string;
  fairnessWeight?: string;
  results?: string;
  review?: boolean;
}

export function registerCampaignCommand(program: Command): void {
  program
    .command('campaign')
    .description('Start a batch campaign from a manifest (CSV or JSONL, one subject per row) and wait for it')
    .requiredOption(
      '--manifest <file>',
      'CSV or JSONL: subjectId, gender, styles, selfies, optional mainImage',
    )
    .option('--json', 'print exactly one JSON document (the campaign summary) on stdout')
    .option(
      '--max-in-flight <n|auto>',
      'subjects running at once: auto sizes the window from the provider queue (default CAMPAIGN_MAX_IN_FLIGHT, auto); a number caps it',
    )
    .option('--fixed-window', 'keep exactly --max-in-flight subjects running instead of sizing the window')
    .option('--skip-invalid', 'start the valid rows and report the invalid ones, instead of starting nothing')
    .option('--campaign-id <id>', 'name the campaign; starting the same id again attaches to it')
    .addOption(tenantOption('campaign it is (its id becomes <tenant>.<campaign id>)'))
    .option('--subjects-per-run <n>', 'subjects per workflow run before it continues as new (default 400)')
    .option('--priority <1-5>', 'Temporal priority of campaign work; interactive pipelines use 3 (default 4)')
    .option(
      '--fairness-weight <w>',
      "the tenant's share of the provider queue beside other tenants, 0.01 to 1000 (default 1); all of a tenant's campaigns share one",
    )
    .option(
      '--review',
      "hold every subject's generated styles for a person's decisions (`avatar-pipeline review`); the window goes on meanwhile",
    )
    .option(
      '--results <file>',
      'write every avatar (subject, style, avatar id, image URL) to a .csv or .jsonl file',
    )
    .addHelpText(
      'after',
      [
        '',
        'The manifest is validated as a whole first: every bad row is reported with its line, field and',
        'reason, and nothing starts unless it is clean (or --skip-invalid). CSV styles are "3;5;7"; selfies',
        'are a folder or files separated by ";" (relative to the manifest). JSONL takes arrays.',
        '',
        '  subjectId,gender,styles,selfies,mainImage',
        '  anna,1,3;5;7,people/anna,',
        '  ben,2,3,people/ben/1.jpg;people/ben/2.jpg,2',
        '',
        'Progress goes to stderr: a live view on a terminal (done/failed/in flight, rate, ETA), a line per',
        'change otherwise. Ctrl-C stops watching; the campaign keeps running (see `avatar-pipeline campaigns`).',
        'Exit codes: 0 every subject done, 1 some subject failed, was partial or cancelled, 2 bad input.',
      ].join('\n'),
    )
    .action(async (options: CampaignCommandOptions) => {
      try {
        process.exitCode = await runCampaign(options);
      } catch (err) {
        reportCampaignError(err);
      }
    });
}

async function runCampaign(options: CampaignCommandOptions): Promise<number> {
  const settings = loadStarterSettings();
  const { priorityKey, fairnessWeight, ...campaignOptions } = optionsFromFlags(options);
  // An operator starting a campaign directly chooses its share (the API's callers cannot); what
  // the operator does not choose comes from the tenants file.
  const tenant = options.tenant ?? DEFAULT_TENANT;
  const tenantSettings = tenantSettingsOf(loadConfig(), tenant);
  const tenantShare = {
    fairnessWeight: tenantSettings.fairnessWeight,
    priorityCeiling: tenantSettings.campaignPriorityCeiling,
  };
  const share = campaignShare(tenant, tenantShare, {
    ...(priorityKey !== undefined ? { priorityKey } : {}),
    ...(fairnessWeight !== undefined ? { fairnessWeight } : {}),
  });
  const knownStyles = await askOfferedStyles((line) => process.stderr.write(printableLines(line)));
  const validation = await loadManifestFile(options.manifest, {
    imageAccess: settings.imageAccess,
    ...(knownStyles ? { knownStyles } : {}),
    // Rows with a modelId are checked as `generate` checks its model: the provider must answer.
    checkModel: lazyModelCheck(),
  }).catch((err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw InputError.field('--manifest', `${options.manifest} does not exist`);
    if (code === 'EISDIR') throw InputError.field('--manifest', `${options.manifest} is a directory`);
    if (code === 'EACCES') throw InputError.field('--manifest', `${options.manifest} cannot be read`);
    throw err;
  });
  if (validation.issues.length > 0) {
    if (!options.skipInvalid || validation.subjects.length === 0) {
      throw new ManifestError(validation.issues, validation.rows);
    }
    writeLines(
      process.stderr,
      `skipping ${validation.invalidRows.length} invalid row(s) of ${validation.rows}:\n${validation.issues
        .map((issue) => `  ${describeIssue(issue)}`)
        .join('\n')}`,
    );
  }

  const pricing = pricingFromEnv(tenant);
  const store = openBlobStoreFromEnv();
  const client = await connectClient(settings.temporal).catch((err: unknown) => {
    store.close();
    throw err;
  });
  try {
    const campaign = await startCampaign(client, validation.subjects, {
      ...settings.placement,
      ...(options.tenant ? { tenant: options.tenant } : {}),
      store,
      defaultMaxInFlight: settings.campaigns.maxInFlight,
      options: campaignOptions,
      share,
      ...(options.campaignId ? { campaignId: options.campaignId } : {}),
      ...(pricing ? { pricing } : {}),
    });
    writeLines(
      process.stderr,
      `started campaign ${campaign.campaignId}: ${validation.subjects.length} subjects`,
    );
    const view = campaignViewFor(process.stderr, campaign.campaignId);
    const watching = watch(campaign, view);
    const outcome = await Promise.race([
      campaign.result().then(
        (summary) => ({ kind: 'done' as const, summary }),
        (error: unknown) => ({ kind: 'failed' as const, error }),
      ),
      interrupted(),
    ]);
    await watching.stop();
    if (outcome.kind === 'failed') {
      writeLines(process.stderr, `campaign ${campaign.campaignId} failed: ${rootMessage(outcome.error)}`);
      return EXIT.failed;
    }
    if (outcome.kind === 'interrupted') {
      writeLines(
        process.stderr,
        `stopped watching; campaign ${campaign.campaignId} keeps running. Follow it with: avatar-pipeline campaigns status ${campaign.campaignId}${tenant === DEFAULT_TENANT ? '' : ` --tenant ${tenant}`}`,
      );
      return EXIT.interrupted;
    }
    const { summary } = outcome;
    if (options.results) await writeResults(campaign, options.results);
    if (options.json) process.stdout.write(printableJson(summary));
    else writeLines(process.stdout, summarize(summary));
    return summary.failed + summary.partial + summary.cancelled === 0 ? EXIT.ok : EXIT.failed;
  } finally {
    store.close();
    await client.connection.close();
  }
}

/** The campaign settings and the operator's share the flags ask for; a bad value names its flag (exit code 2). */
export function optionsFromFlags(
  options: CampaignCommandOptions,
): Omit<CampaignOptions, OperatorCampaignOption> & OperatorCampaignChoice {
  const whole = (flag: string, value: string | undefined, min: number, max: number): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value.trim());
    if (!/^\d+$/.test(value.trim()) || n < min || n > max)
      throw InputError.field(flag, `"${value}" must be a whole number from ${min} to ${max}`);
    return n;
  };
  const maxInFlight =
    options.maxInFlight?.trim() === 'auto' ? 'auto' : whole('--max-in-flight', options.maxInFlight, 1, 2000);
  const subjectsPerRun = whole('--subjects-per-run', options.subjectsPerRun, 1, 5000);
  const priorityKey = whole('--priority', options.priority, 1, 5);
  const fairnessWeight =
    options.fairnessWeight === undefined ? undefined : Number(options.fairnessWeight.trim());
  if (fairnessWeight !== undefined && !(fairnessWeight >= 0.01 && fairnessWeight <= 1000))
    throw InputError.field(
      '--fairness-weight',
      `"${options.fairnessWeight}" must be a number from 0.01 to 1000`,
    );
  if (options.results && !/\.(csv|jsonl)$/i.test(options.results))
    throw InputError.field('--results', `"${options.results}" must end in .csv or .jsonl`);
  return {
    ...(maxInFlight !== undefined ? { maxInFlight } : {}),
    ...(options.fixedWindow ? { fixedWindow: true } : {}),
    ...(subjectsPerRun !== undefined ? { subjectsPerRun } : {}),
    ...(priorityKey !== undefined ? { priorityKey } : {}),
    ...(fairnessWeight !== undefined ? { fairnessWeight } : {}),
    ...(options.review ? { review: { required: true } } : {}),
  };
}

function watch(campaign: CampaignHandle, view: CampaignView) {
  const abort = new AbortController();
  const loop = (async () => {
    while (!abort.signal.aborted) {
      view.update(await campaign.progress().catch(() => undefined));
      await delay(view.intervalMs, undefined, { signal: abort.signal }).catch(() => undefined);
    }
  })();
  return {
    stop: async () => {
      abort.abort();
      await loop;
      view.update(await campaign.progress().catch(() => undefined));
      view.finish();
    },
  };
}

async function writeResults(campaign: CampaignHandle, file: string): Promise<void> {
  const out = createWriteStream(file);
  for await (const chunk of exportResults(
    campaign.resultRows(),
    file.toLowerCase().endsWith('.csv') ? 'csv' : 'jsonl',
  )) {
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  writeLines(process.stderr, `wrote ${file}`);
}

function interrupted(): Promise<{ kind: 'interrupted' }> {
  return new Promise((resolve) => process.once('SIGINT', () => resolve({ kind: 'interrupted' })));
}

/** The provider is configured and asked only when some row names a modelId, and then once for all. */
function lazyModelCheck(): ModelCheck {
  let check: ModelCheck | undefined;
  return (target) => (check ??= manifestModelCheck(new ProviderClient(loadConfig().provider)))(target);
}

import { InvalidArgumentError, type Command } from 'commander';
import {
  MAX_LIST_LIMIT,
  PIPELINE_KINDS,
  PIPELINE_STATUS_FILTERS,
  type PipelineKind,
  type PipelineStatusFilter,
} from '@avatar-pipeline/client/client/list-pipelines';
import { createPipelineClient } from '@avatar-pipeline/client/client/pipeline-client';
import { tenantOption } from '../tenant-flag';
import type { PipelineSummary } from '@avatar-pipeline/client/client/list-pipelines';
import { reportError } from '../fail';
import { printable, printableJson, writeLines } from '../printable';

interface ListFlags {
  tenant: string;
  status?: PipelineStatusFilter;
  subject?: string;
  campaign?: string;
  kind?: PipelineKind;
  limit: number;
  json?: boolean;
}

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value.trim()) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_LIST_LIMIT}`);
  }
  return limit;
}

function parseKind(value: string): PipelineKind {
  if (!(PIPELINE_KINDS as string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${PIPELINE_KINDS.join(', ')}`);
  }
  return value as PipelineKind;
}

function parseStatus(value: string): PipelineStatusFilter {
  if (!(PIPELINE_STATUS_FILTERS as string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${PIPELINE_STATUS_FILTERS.join(', ')}`);
  }
  return value as PipelineStatusFilter;
}

export function registerListCommand(program: Command): void {
  program
    .command('list')
    .description('List pipeline runs, newest first')
    .option(
      '--status <state>',
      `only runs in this state (${PIPELINE_STATUS_FILTERS.join(', ')})`,
      parseStatus,
    )
    .addOption(tenantOption('runs to list'))
    .option('--subject <id>', 'only runs for this subject (the --subject given to `run`)')
    .option('--campaign <id>', 'only runs of this campaign')
    .option('--kind <kind>', `only runs of this kind (${PIPELINE_KINDS.join(', ')})`, parseKind)
    .option('--limit <n>', `at most this many runs (1-${MAX_LIST_LIMIT})`, parseLimit, 20)
    .option(
      '--json',
      'print one JSON array of {workflowId, runId, kind, status, stage, startTime, closeTime, subjectId, campaignId, modelId}',
    )
    .action(async (flags: ListFlags) => {
      try {
        const pipelines = await createPipelineClient({ tenant: flags.tenant });
        try {
          const runs = await pipelines.list({
            limit: flags.limit,
            ...(flags.status ? { status: flags.status } : {}),
            ...(flags.subject ? { subjectId: flags.subject } : {}),
            ...(flags.campaign ? { campaignId: flags.campaign } : {}),
            ...(flags.kind ? { kind: flags.kind } : {}),
          });
          if (flags.json) {
            process.stdout.write(printableJson(runs));
            return;
          }
          if (runs.length === 0) writeLines(process.stderr, 'no pipelines found');
          for (const run of runs) writeLines(process.stdout, listLine(run));
        } finally {
          await pipelines.close();
        }
      } catch (err) {
        reportError(err);
      }
    });
}

/** One run as `list` prints it; ids come from callers and are escaped before they reach the terminal. */
export function listLine(run: PipelineSummary): string {
  const subject = run.subjectId ? `  subject ${printable(run.subjectId)}` : '';
  const model = run.modelId === undefined ? '' : `  model ${run.modelId}`;
  return `${run.startTime.toISOString()}  ${run.status.padEnd(10)}  ${printable(run.workflowId)}${subject}${model}`;
}

import { setTimeout as delay } from 'node:timers/promises';
import type { Command } from 'commander';
import { WorkflowNotFoundError, type WorkflowExecutionStatusName } from '@temporalio/client';
import { createPipelineClient } from '@avatar-pipeline/client/client/pipeline-client';
import type { PipelineHandle } from '@avatar-pipeline/client/client/pipelines';
import type { PipelineProgress, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { EXIT } from '../exit-codes';
import { reportError } from '../fail';
import { describeProgress } from '../progress-lines';
import { rootMessage } from '../root-message';
import { settledProgress } from '../settled-progress';
import { printableJson, writeLines } from '../printable';

/** The progress query needs a worker; without one it would wait, so status gives up on it after this. */
const PROGRESS_QUERY_MS = 5_000;

export interface PipelineStatusReport {
  workflowId: string;
  state: WorkflowExecutionStatusName;
  startTime: string;
  closeTime?: string;
  progress?: PipelineProgress;
  result?: PipelineResult;
  error?: string;
}

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('Show the state, progress and (when finished) the result or error of a pipeline')
    .argument('<workflowId>', 'the pipeline workflow id (printed by `run`, listed by `list`)')
    .option(
      '--json',
      'print one JSON document: {workflowId, state, startTime, closeTime, progress, result, error}',
    )
    .addHelpText(
      'after',
      '\nProgress comes from the pipeline itself, so it needs a running worker; without one only the state is shown.\nExit codes: 0 found (whatever its state), 2 no such pipeline or bad configuration, 1 Temporal unreachable.',
    )
    .action(async (workflowId: string, options: { json?: boolean }) => {
      try {
        const pipelines = await createPipelineClient();
        try {
          const report = await statusReport(pipelines.get(workflowId));
          if (options.json) process.stdout.write(printableJson(report));
          else writeLines(process.stdout, describeReport(report));
        } finally {
          await pipelines.close();
        }
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) {
          writeLines(process.stderr, `avatar-pipeline: workflowId: no pipeline with id ${workflowId}`);
          process.exitCode = EXIT.badInput;
          return;
        }
        reportError(err);
      }
    });
}

async function statusReport(pipeline: PipelineHandle): Promise<PipelineStatusReport> {
  const description = await pipeline.raw.describe();
  const state = description.status.name;
  const progress = await Promise.race([
    pipeline.progress().catch(() => undefined),
    delay(PROGRESS_QUERY_MS, undefined, { ref: false }),
  ]);
  const report: PipelineStatusReport = {
    workflowId: pipeline.workflowId,
    state,
    startTime: description.startTime.toISOString(),
    ...(description.closeTime ? { closeTime: description.closeTime.toISOString() } : {}),
    ...(progress ? { progress } : {}),
  };
  if (state === 'RUNNING') return report;
  // A closed run's outcome comes from its history, no worker needed.
  try {
    const result = await pipeline.result();
    // A style reports its own end just as it closes, so the query can lag behind the result.
    return { ...report, progress: settledProgress(progress, result), result };
  } catch (err) {
    return { ...report, error: rootMessage(err) };
  }
}

function describeReport(report: PipelineStatusReport): string {
  const lines = [
    `${report.workflowId}: ${report.state} (started ${report.startTime}${report.closeTime ? `, closed ${report.closeTime}` : ''})`,
  ];
  lines.push(report.progress ? describeProgress(report.progress) : '(no progress: no worker answered)');
  if (report.error) lines.push(`error: ${report.error}`);
  if (report.result) {
    for (const g of report.result.generations) {
      lines.push(
        `  style ${g.styleId}: ${g.status}, ${g.avatars.length} avatars${g.error ? ` (${g.error})` : ''}`,
      );
    }
  }
  return lines.join('\n');
}

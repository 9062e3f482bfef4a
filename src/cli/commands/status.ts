import type { Command } from 'commander';
import { WorkflowNotFoundError } from '@temporalio/client';
import { connectClient } from '../../client/connect';
import { getPipeline } from '../../client/pipelines';
import { loadConfig } from '../../config/load-config';
import { EXIT } from '../exit-codes';
import { reportError } from '../fail';
import { describeProgress } from '../progress-lines';

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('Show the state, progress and (when finished) the result of a pipeline')
    .argument('<workflowId>', 'the pipeline workflow id')
    .option('--json', 'print one JSON document')
    .action(async (workflowId: string, options: { json?: boolean }) => {
      try {
        const config = loadConfig();
        const client = await connectClient(config.temporal);
        try {
          const pipeline = getPipeline(client, workflowId);
          const description = await pipeline.raw.describe();
          const progress = await pipeline.progress();
          const state = description.status.name;
          const result = state === 'COMPLETED' ? await pipeline.result() : undefined;
          if (options.json)
            process.stdout.write(`${JSON.stringify({ workflowId, state, progress, result }, null, 2)}\n`);
          else console.log(`${workflowId}: ${state}\n${describeProgress(progress)}`);
        } finally {
          await client.connection.close();
        }
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) {
          console.error(`avatar-pipeline: no pipeline with id ${workflowId}`);
          process.exitCode = EXIT.badInput;
          return;
        }
        reportError(err);
      }
    });
}

import type { Command } from 'commander';
import { runWorker } from '../../worker/run-worker';
import { reportError } from '../fail';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('Run a pipeline worker until SIGINT/SIGTERM, then drain and exit 0')
    .action(async () => {
      try {
        await runWorker();
      } catch (err) {
        reportError(err);
      }
    });
}

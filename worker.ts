/** The worker's entry point (`node dist/worker.js`); `avatar-pipeline worker` runs the same. */
import { exitCodeFor } from './src/cli/exit-codes';
import { runWorker } from './src/worker/run-worker';

export { runWorker };

if (require.main === module) {
  runWorker().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(exitCodeFor(err));
  });
}

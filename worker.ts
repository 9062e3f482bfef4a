import { loadConfig } from './src/config/load-config';
import { createPipelineWorker } from './src/worker/create-worker';

/**
 * The pipeline worker: configuration from the environment, one worker on the pipeline task
 * queue. The SDK drains in-flight work on SIGINT/SIGTERM before `run()` resolves.
 */
export async function runWorker(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  const worker = await createPipelineWorker({ config });
  console.error(
    `avatar-pipeline worker: task queue "${config.temporal.taskQueue}" on ${config.temporal.address} (namespace ${config.temporal.namespace}), provider ${config.provider.baseUrl}`,
  );
  await worker.run();
  console.error('avatar-pipeline worker: drained and stopped');
}

if (require.main === module) {
  runWorker().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(err instanceof Error && err.name === 'ConfigError' ? 2 : 1);
  });
}

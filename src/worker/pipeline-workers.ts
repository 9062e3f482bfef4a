import type { Worker } from '@temporalio/worker';
import { createPipelineWorker, createProviderWorker, type PipelineWorkerOptions } from './create-worker';

/**
 * The two workers a deployment runs: workflows and light activities on the pipeline task queue,
 * provider activities on the rate-limited provider task queue. They start and stop together.
 */
export class PipelineWorkers {
  private constructor(
    readonly pipeline: Worker,
    readonly provider: Worker,
  ) {}

  static async create(options: PipelineWorkerOptions): Promise<PipelineWorkers> {
    const pipeline = await createPipelineWorker(options);
    const provider = await createProviderWorker({
      ...options,
      connection: options.connection ?? pipeline.options.connection,
    });
    return new PipelineWorkers(pipeline, provider);
  }

  get taskQueues(): { pipeline: string; provider: string } {
    return { pipeline: this.pipeline.options.taskQueue, provider: this.provider.options.taskQueue };
  }

  /** Runs both until shut down (SIGINT/SIGTERM or shutdown()); one failing stops the other. */
  async run(): Promise<void> {
    const runs = [this.pipeline, this.provider].map((worker) =>
      worker.run().catch((err: unknown) => {
        this.shutdown();
        throw err;
      }),
    );
    await Promise.all(runs);
  }

  /** Runs both while `body` runs, then shuts them down and waits for them to drain. */
  async runUntil<T>(body: () => Promise<T>): Promise<T> {
    const running = this.run();
    try {
      return await Promise.race([
        body(),
        running.then(() => Promise.reject(new Error('the workers stopped'))),
      ]);
    } finally {
      this.shutdown();
      await running.catch(() => undefined);
    }
  }

  shutdown(): void {
    for (const worker of [this.pipeline, this.provider]) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    }
  }
}

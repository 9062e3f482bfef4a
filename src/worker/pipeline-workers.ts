import type { Worker } from '@temporalio/worker';
import {
  createChecksWorker,
  createPipelineWorker,
  createProviderWorker,
  type PipelineWorkerOptions,
} from './create-worker';

/**
 * The workers a deployment runs: workflows and light activities on the pipeline task queue,
 * provider activities on the rate-limited provider task queue, and (CHECK_WORKER=on) the quality
 * checks on the checks task queue. They start and stop together. A check-only process
 * (CHECK_WORKER=only) runs the check worker alone.
 */
export class PipelineWorkers {
  private constructor(
    readonly pipeline: Worker | undefined,
    readonly provider: Worker | undefined,
    readonly checks: Worker | undefined,
  ) {}

  static async create(options: PipelineWorkerOptions): Promise<PipelineWorkers> {
    const mode = options.config.worker.checks?.mode ?? 'off';
    if (mode === 'only') return new PipelineWorkers(undefined, undefined, await createChecksWorker(options));
    const pipeline = await createPipelineWorker(options);
    const shared = { ...options, connection: options.connection ?? pipeline.options.connection };
    const provider = await createProviderWorker(shared);
    const checks = mode === 'on' ? await createChecksWorker(shared) : undefined;
    return new PipelineWorkers(pipeline, provider, checks);
  }

  get taskQueues(): { pipeline?: string; provider?: string; checks?: string } {
    return {
      ...(this.pipeline ? { pipeline: this.pipeline.options.taskQueue } : {}),
      ...(this.provider ? { provider: this.provider.options.taskQueue } : {}),
      ...(this.checks ? { checks: this.checks.options.taskQueue } : {}),
    };
  }

  private get all(): Worker[] {
    return [this.pipeline, this.provider, this.checks].filter((w): w is Worker => w !== undefined);
  }

  /** Runs them all until shut down (SIGINT/SIGTERM or shutdown()); one failing stops the others. */
  async run(): Promise<void> {
    const runs = this.all.map((worker) =>
      worker.run().catch((err: unknown) => {
        this.shutdown();
        throw err;
      }),
    );
    await Promise.all(runs);
  }

  /** Runs them while `body` runs, then shuts them down and waits for them to drain. */
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
    for (const worker of this.all) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    }
  }
}

import type { NativeConnection, WorkerInterceptors } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ActivityInboundCallsInterceptor, ActivityExecuteInput, Next } from '@temporalio/worker';
import type { AppConfig } from '../../src/config/load-config';
import { filesystemStorage } from '@avatar-pipeline/client/storage/storage-settings';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { PipelineWorkers } from '../../src/worker/pipeline-workers';

export interface TestWorkerOptions {
  connection: NativeConnection;
  /**
   * The namespace of the connection's environment (`env.namespace`): each test file of the
   * temporal tier has its own (test/setup/namespace-pool.ts). `testConfig` alone defaults to 'default'.
   */
  namespace: string;
  taskQueue: string;
  providerUrl: string;
  imageRoots: string[];
  apiKey?: string;
  interceptors?: WorkerInterceptors;
  /** Signing secret and allowed private hosts for completion callbacks. */
  callbacks?: AppConfig['callbacks'];
  /** ARCHIVE_AVATARS for the runs started with this configuration; off when absent. */
  archiveAvatars?: boolean;
  /**
   * PROVIDER_WRITE_SETTLE_MS; 1 s when absent: the simulator shows a write the moment it applies it,
   * so a test worker need not wait the production default (60 s) after a 5xx or a lost answer.
   */
  writeSettleMs?: number;
}

export function testConfig(
  options: Omit<TestWorkerOptions, 'connection' | 'interceptors' | 'namespace'> & { namespace?: string },
): AppConfig {
  return {
    provider: {
      baseUrl: options.providerUrl,
      apiKey: options.apiKey ?? 'sim-key',
      timeoutMs: 5_000,
      writeSettleMs: options.writeSettleMs ?? 1_000,
    },
    temporal: { address: 'unused', namespace: options.namespace ?? 'default', taskQueue: options.taskQueue },
    imageAccess: { roots: options.imageRoots, urlHosts: [] },
    api: {
      tokens: [],
      port: 0,
      host: '127.0.0.1',
      blobDir: options.imageRoots[0] ?? process.cwd(),
      maxFileBytes: 10 * 1024 * 1024,
    },
    callbacks: options.callbacks ?? { privateHosts: [] },
    // BLOB_DIR's place in these tests: the first image root, which the API's blobDir names too.
    storage: filesystemStorage(options.imageRoots[0] ?? process.cwd()),
    placement: placementFrom({ taskQueue: options.taskQueue, archiveAvatars: options.archiveAvatars }),
    campaigns: { maxInFlight: 50 },
    worker: {
      maxConcurrentActivities: 50,
      maxConcurrentWorkflowTasks: 20,
      maxCachedWorkflows: 200,
      shutdownGraceMs: 1_000,
    },
  };
}

/** The pipeline and provider workers of a test, on `taskQueue` and its provider queue. */
export function createTestWorker(options: TestWorkerOptions): Promise<PipelineWorkers> {
  return PipelineWorkers.create({
    config: testConfig(options),
    connection: options.connection,
    ...(options.interceptors ? { interceptors: options.interceptors } : {}),
  });
}

/**
 * Lets an in-process simulator keep time with a time-skipping test server: before each activity
 * (and so before any provider call) the simulator's clock is set to the server's current time,
 * which does not move while an activity is running.
 */
export class SkippedClock {
  private nowMs = Date.now();

  constructor(private readonly env: TestWorkflowEnvironment) {}

  readonly now = (): number => this.nowMs;

  readonly interceptors: WorkerInterceptors = {
    activity: [
      () => ({
        inbound: new (class implements ActivityInboundCallsInterceptor {
          constructor(private readonly clock: SkippedClock) {}
          async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>) {
            await this.clock.sync();
            return next(input);
          }
        })(this),
      }),
    ],
  };

  async sync(): Promise<void> {
    this.nowMs = await this.env.currentTimeMs();
  }
}

/** Storage settings of a filesystem blob store at `dir`, for a test's workers and starters to share. */
export function fsStorage(dir: string): NonNullable<AppConfig['storage']> {
  return filesystemStorage(dir);
}

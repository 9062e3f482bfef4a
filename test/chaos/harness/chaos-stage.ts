import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startCampaign, type CampaignHandle } from '@avatar-pipeline/client/campaign/campaigns';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
import type { CampaignSubject, CampaignSummary } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { syntheticSelfiePng } from '../../../src/samples/synthetic-selfie';
import type { SimulatorOptions } from '../../../src/simulator';
import { makeScratchDir, uniqueName } from '../../helpers/temporal-env';
import { killAllSpawned, startWorkerProcess, type CliProcess } from '../../helpers/worker-process';
import { readUsage } from '@avatar-pipeline/client/client/budget';
import type { Usage } from '@avatar-pipeline/client/contracts/usage';
import { ChaosProvider } from './chaos-provider';
import { CHAOS_POLLING, type ChaosSize } from './chaos-size';
import { ownTemporal, sharedTemporal, type ChaosTemporal } from './chaos-temporal';

/** Credits per training and per style: any prices do, the meter's counts are what is compared. */
export const CHAOS_COSTS = { training: 10, generation: 2 };
const TENANTS_FILE_NAME = 'tenants.json';

export interface ChaosStageOptions {
  /** Names the task queue, scratch directories and campaign. */
  name: string;
  size: ChaosSize;
  /** Faults and knobs of the simulator; its timing comes from the size. */
  provider?: SimulatorOptions;
  /** 'own': a dev server only this scenario uses, so it may be killed. Default 'shared'. */
  temporal?: 'shared' | 'own';
  /** Extra environment of every worker process (e.g. PROVIDER_TIMEOUT_MS). */
  workerEnv?: Record<string, string>;
}

/**
 * Everything one chaos scenario runs on: a Temporal server, the provider simulator, selfie files,
 * `avatar-pipeline worker` processes (the compiled CLI) on a task queue of its own, and a campaign
 * of `size.subjects` subjects started through the client package.
 */
export class ChaosStage {
  readonly taskQueue: string;
  /**
   * The campaign's tenant, one per stage: scenarios share a dev server, and a tenant's budget
   * meter runs on the task queue of the workers that first started it.
   */
  readonly tenant: string;
  private readonly workers = new Set<CliProcess>();

  private constructor(
    readonly options: ChaosStageOptions,
    readonly temporal: ChaosTemporal,
    readonly provider: ChaosProvider,
    readonly selfies: { dir: string; files: string[] },
    /** BLOB_DIR of the workers and the starter: campaign manifests (and archived avatars). */
    readonly blobDir: string,
  ) {
    this.taskQueue = uniqueName(`chaos-${options.name}`);
    this.tenant = `${options.name}-${this.taskQueue.slice(-8)}`.toLowerCase();
  }

  static async open(options: ChaosStageOptions): Promise<ChaosStage> {
    const { size } = options;
    const selfiesDir = await makeScratchDir(`chaos-${options.name}-selfies`);
    const files: string[] = [];
    for (let i = 0; i < size.selfiesPerSubject; i++) {
      const file = path.join(selfiesDir, `selfie-${i + 1}.png`);
      await writeFile(file, syntheticSelfiePng(i + 1, 64));
      files.push(file);
    }
    const blobDir = await makeScratchDir(`chaos-${options.name}-blobs`);
    // Priced, so every order the workers make is metered, as a production deployment with budgets is.
    await writeFile(path.join(blobDir, TENANTS_FILE_NAME), JSON.stringify({ costs: CHAOS_COSTS }));
    const temporal =
      options.temporal === 'own' ? await ownTemporal(`chaos-${options.name}`) : await sharedTemporal();
    const provider = await ChaosProvider.start(`chaos-${options.name}`, {
      progression: { mode: 'wall', trainingMs: size.trainingMs, generationMs: size.generationMs },
      seed: 7_001,
      ...options.provider,
    }).catch(async (err: unknown) => {
      await temporal.close();
      throw err;
    });
    return new ChaosStage(options, temporal, provider, { dir: selfiesDir, files }, blobDir);
  }

  get size(): ChaosSize {
    return this.options.size;
  }

  /** The environment of a worker process on this stage. */
  workerEnv(extra: Record<string, string> = {}): Record<string, string> {
    return {
      TEMPORAL_ADDRESS: this.temporal.address,
      TEMPORAL_NAMESPACE: this.temporal.namespace,
      TEMPORAL_TASK_QUEUE: this.taskQueue,
      PROVIDER_BASE_URL: this.provider.url,
      PROVIDER_API_KEY: 'sim-key',
      IMAGE_ROOTS: this.selfies.dir,
      BLOB_DIR: this.blobDir,
      // Drawn selfies, which the face checks would refuse (test/setup/checks-off-by-default.ts).
      SELFIE_CHECKS: 'false',
      AVATAR_CHECKS: 'false',
      WORKER_SHUTDOWN_GRACE_MS: '5000',
      LOG_LEVEL: 'info',
      // The simulator acts on a write at once (scenarios with slow answers set their own), so a
      // write cut off by a worker kill has landed long before a retry looks: the defaults
      // (a 30 s timeout plus 60 s of settling) would only make every scenario wait.
      PROVIDER_TIMEOUT_MS: '5000',
      PROVIDER_WRITE_SETTLE_MS: '3000',
      API_TENANTS_FILE: path.join(this.blobDir, TENANTS_FILE_NAME),
      ...this.options.workerEnv,
      ...extra,
    };
  }

  /** Starts `avatar-pipeline worker`; resolves once it polls. */
  async startWorker(extra: Record<string, string> = {}): Promise<CliProcess> {
    const worker = await startWorkerProcess(this.workerEnv(extra));
    this.workers.add(worker);
    void worker.exited.then(() => this.workers.delete(worker));
    return worker;
  }

  /** SIGKILL: no drain, no goodbye; whatever it was doing is left for Temporal to time out and retry. */
  async killWorker(worker: CliProcess): Promise<void> {
    worker.child.kill('SIGKILL');
    const how = await worker.exited;
    if (how !== 'SIGKILL') throw new Error(`worker ${worker.pid} ended with ${how}, not by the SIGKILL`);
  }

  /** SIGTERM and the drain the CLI promises: exit code 0. */
  async stopWorker(worker: CliProcess): Promise<number | string> {
    worker.child.kill('SIGTERM');
    return worker.exited;
  }

  get liveWorkers(): CliProcess[] {
    return [...this.workers];
  }

  subjects(): CampaignSubject[] {
    const { size } = this;
    return Array.from({ length: size.subjects }, (_, i) => ({
      subjectId: `s${i + 1}`,
      gender: (i % 2 === 0 ? 1 : 2) as 1 | 2,
      styles: size.styles,
      images: this.selfies.files,
      mainImageIndex: i % size.selfiesPerSubject,
      row: i + 2,
    }));
  }

  startCampaign(): Promise<CampaignHandle> {
    return startCampaign(this.temporal.client, this.subjects(), {
      ...placementFrom({ taskQueue: this.taskQueue }),
      tenant: this.tenant,
      store: new FsBlobStore(this.blobDir),
      campaignId: uniqueName(`chaos-${this.options.name}`),
      options: { maxInFlight: this.size.maxInFlight, polling: CHAOS_POLLING },
    });
  }

  /**
   * Whether the campaign is still running; undefined while Temporal cannot be asked (it is down).
   */
  async campaignRunning(handle: CampaignHandle): Promise<boolean | undefined> {
    try {
      return (await handle.raw.describe()).status.name === 'RUNNING';
    } catch {
      return undefined;
    }
  }

  /** Waits for the campaign to end (riding out a Temporal outage), then returns its summary. */
  async campaignSummary(handle: CampaignHandle, timeoutMs: number): Promise<CampaignSummary> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.campaignRunning(handle)) !== false) {
      if (Date.now() > deadline) {
        const progress = await handle.progress().catch((err: unknown) => String(err));
        throw new Error(
          `campaign ${handle.campaignId} still running after ${timeoutMs} ms: ${JSON.stringify(progress)}`,
        );
      }
      await delay(500);
    }
    return handle.result();
  }

  /**
   * The stage tenant's meter once it has counted `orders` orders (its signals may still be on
   * their way when the campaign ends), or as it stands after `timeoutMs`.
   */
  async meterUsage(orders: number, timeoutMs = 30_000): Promise<Usage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const usage = await readUsage(this.temporal.client, this.tenant, undefined);
      const counted = Object.values(usage.byKind).reduce((sum, kind) => sum + kind.orders, 0);
      if (counted >= orders || Date.now() > deadline) return usage;
      await delay(500);
    }
  }

  async close(): Promise<void> {
    await killAllSpawned();
    await this.provider.stop();
    await this.temporal.close();
  }
}

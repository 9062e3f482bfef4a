import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { NativeConnection, WorkerInterceptors } from '@temporalio/worker';
import {
  startCampaign,
  type CampaignHandle,
  type StartCampaignOptions,
} from '@avatar-pipeline/client/campaign/campaigns';
import type { CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { placementFrom, type RunPlacement } from '@avatar-pipeline/client/config/run-placement';
import { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { fsStorage, testConfig } from './pipeline-worker';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
import type { BlobStore } from '@avatar-pipeline/client/storage/blob-store';
import { uniqueName } from './temporal-env';

export interface CampaignRigOptions {
  connection: NativeConnection;
  client: Client;
  providerUrl: string;
  imageRoots: string[];
  /** The blob store (a directory) the workers read campaign manifests from and starters write them to. */
  blobDir: string;
  /** Task-queue-wide provider activity rate (PROVIDER_MAX_RPS). */
  maxRequestsPerSecond?: number;
  interceptors?: WorkerInterceptors;
}

/** Workers on fresh pipeline and provider task queues, and a way to start campaigns on them. */
export class CampaignRig {
  private constructor(
    private readonly options: CampaignRigOptions,
    readonly workers: PipelineWorkers,
    /** The fresh task queues the workers poll and campaigns start on. */
    readonly placement: RunPlacement,
  ) {}

  static async create(options: CampaignRigOptions): Promise<CampaignRig> {
    const placement = placementFrom({ taskQueue: uniqueName('campaign') });
    const base = testConfig({
      namespace: options.client.options.namespace,
      taskQueue: placement.taskQueue,
      providerUrl: options.providerUrl,
      imageRoots: options.imageRoots,
    });
    const config = {
      ...base,
      worker: {
        ...base.worker,
        ...(options.maxRequestsPerSecond
          ? { providerMaxRequestsPerSecond: options.maxRequestsPerSecond }
          : {}),
      },
      campaigns: { maxInFlight: 10 },
      storage: fsStorage(options.blobDir),
    };
    const workers = await PipelineWorkers.create({
      config,
      connection: options.connection,
      ...(options.interceptors ? { interceptors: options.interceptors } : {}),
    });
    return new CampaignRig(options, workers, placement);
  }

  /** The store campaigns are started with: the workers'. */
  get store(): BlobStore {
    return (this.#store ??= new FsBlobStore(this.options.blobDir));
  }
  #store: BlobStore | undefined;

  get taskQueue(): string {
    return this.placement.taskQueue;
  }

  start(
    subjects: CampaignSubject[],
    options: Partial<Omit<StartCampaignOptions, 'taskQueue' | 'store'>> = {},
  ): Promise<CampaignHandle> {
    return startCampaign(this.options.client, subjects, {
      ...this.placement,
      store: this.store,
      campaignId: uniqueName('test-campaign'),
      ...options,
    });
  }

  run<T>(body: () => Promise<T>): Promise<T> {
    return this.workers.runUntil(body);
  }
}

/** Subjects u1…uN with one selfie each and the given styles (per subject when a function). */
export function subjects(
  count: number,
  image: string,
  styles: number[] | ((index: number) => number[]) = [3],
): CampaignSubject[] {
  return Array.from({ length: count }, (_, i) => ({
    subjectId: `u${i + 1}`,
    gender: 1 as const,
    styles: typeof styles === 'function' ? styles(i) : styles,
    images: [image],
    mainImageIndex: 0,
    row: i + 2,
  }));
}

/** Polling that keeps up with a simulator finishing orders in a few hundred milliseconds. */
export const FAST_POLLING = {
  initialIntervalMs: 200,
  minIntervalMs: 100,
  maxIntervalMs: 400,
  backoffCoefficient: 1.5,
};

/** Waits until `check` passes, polling the campaign's progress; then that progress. */
export async function progressUntil(
  handle: CampaignHandle,
  check: (p: Awaited<ReturnType<CampaignHandle['progress']>>) => boolean,
  timeoutMs = 30_000,
): Promise<Awaited<ReturnType<CampaignHandle['progress']>>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const progress = await handle.progress();
    if (check(progress)) return progress;
    if (Date.now() > deadline) throw new Error(`timed out; last progress ${JSON.stringify(progress)}`);
    await delay(100);
  }
}

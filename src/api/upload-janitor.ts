import { rm } from 'node:fs/promises';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { uploadsExpired, type SelfieRetention } from '../config/selfie-retention';
import { PipelineStageAttribute } from '../contracts/search-attributes';
import { text } from 'node:stream/consumers';
import { deletePrefix, type BlobStore as StorageBackend } from '../storage';
import type { BlobStore, StoredBatch } from './blob-store';

export interface UploadJanitorOptions {
  store: BlobStore;
  /** Object storage the API moves uploads into (`uploads/<workflowId>/`), swept by the same rule. */
  uploads?: StorageBackend;
  client: Client;
  retention: SelfieRetention;
  /**
   * How long a batch may wait for its pipeline: a request still uploading has no claim yet, and a
   * claimed pipeline may not be visible yet. Past it, a batch with no pipeline is what a refused
   * request or a crashed API left behind.
   */
  graceMs?: number;
  now?: () => number;
  log?: (message: string) => void;
}

export const DEFAULT_UPLOAD_GRACE_MS = 60 * 60 * 1000;
export const DEFAULT_SWEEP_INTERVAL_MS = 5 * 60 * 1000;

/**
 * Deletes uploaded selfies that are no longer needed: those of a pipeline past its retention
 * (SELFIE_RETENTION, by the run's status and PipelineStage search attribute), and, after the grace
 * period, those with no pipeline at all. Leaves a batch alone when Temporal cannot be asked.
 * Returns the directories removed.
 */
export async function sweepUploads(options: UploadJanitorOptions): Promise<string[]> {
  const now = options.now?.() ?? Date.now();
  const grace = options.graceMs ?? DEFAULT_UPLOAD_GRACE_MS;
  const removed: string[] = [];
  const batches: Array<StoredBatch & { prefix?: string }> = await options.store.batches();
  if (options.uploads) batches.push(...(await storedBatches(options.uploads)));
  for (const batch of batches) {
    const old = now - batch.since.getTime() >= grace;
    let expired: boolean;
    if (batch.workflowId === undefined) {
      expired = old;
    } else {
      try {
        const run = await options.client.workflow.getHandle(batch.workflowId).describe();
        const stage = run.typedSearchAttributes.get(PipelineStageAttribute);
        expired = uploadsExpired(
          options.retention,
          {
            ...(run.status.name !== 'RUNNING' && run.closeTime ? { closedAt: run.closeTime } : {}),
            ...(stage !== undefined ? { stage } : {}),
          },
          now,
        );
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) {
          options.log?.(
            `upload janitor: cannot ask about ${batch.workflowId} (${String(err)}); kept for now`,
          );
          continue;
        }
        expired = old;
      }
    }
    if (!expired) continue;
    if (batch.prefix !== undefined && options.uploads) await deletePrefix(options.uploads, batch.prefix);
    else await rm(batch.dir, { recursive: true, force: true });
    removed.push(batch.dir);
  }
  return removed;
}

/**
 * The pipelines' uploads in object storage, as batches: one per `uploads/<id>/` prefix, claimed by
 * the pipeline its claim object names, since the time the claim records. The claim is written before
 * the selfies, so a prefix without one is what a crashed request left behind: it counts as old.
 */
async function storedBatches(store: StorageBackend): Promise<Array<StoredBatch & { prefix: string }>> {
  const prefixes = new Set(
    (await store.list('uploads/')).map((o) => o.key.split('/').slice(0, 2).join('/') + '/'),
  );
  const found: Array<StoredBatch & { prefix: string }> = [];
  for (const prefix of prefixes) {
    const claim = await store.get(`${prefix}pipeline.json`);
    let workflowId: string | undefined;
    let since = new Date(0);
    if (claim) {
      const parsed = JSON.parse(await text(claim.body)) as { workflowId?: unknown; since?: unknown };
      if (typeof parsed.workflowId === 'string') workflowId = parsed.workflowId;
      if (typeof parsed.since === 'number') since = new Date(parsed.since);
    }
    found.push({
      dir: `${store.location}/${prefix}`,
      prefix,
      since,
      ...(workflowId ? { workflowId } : {}),
    });
  }
  return found;
}

/** Sweeps now and then every `intervalMs` until stopped; one sweep at a time. */
export function startUploadJanitor(options: UploadJanitorOptions & { intervalMs?: number }): {
  stop: () => Promise<void>;
} {
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    running = running
      .then(() => sweepUploads(options))
      .catch((err: unknown) => options.log?.(`upload janitor: sweep failed (${String(err)})`));
  };
  const timer = setInterval(sweep, options.intervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
  timer.unref();
  sweep();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

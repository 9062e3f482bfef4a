import { text } from 'node:stream/consumers';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { uploadsExpired, type SelfieRetention } from '@avatar-pipeline/client/config/selfie-retention';
import { PipelineStageAttribute } from '@avatar-pipeline/client/contracts/search-attributes';
import {
  deleteUploadBatch,
  isUploadClaim,
  UPLOAD_CLAIM_NAME,
  UPLOADS_ROOT,
  type BlobStore,
} from '../storage';

export interface UploadJanitorOptions {
  /** The blob store the API writes uploads to (`uploads/<workflowId>/<batch>/`). */
  store: BlobStore;
  client: Client;
  retention: SelfieRetention;
  /**
   * How long a batch may wait for its pipeline: a claimed pipeline may not be visible yet while
   * its request is still uploading. Past it, a batch with no pipeline is what a refused request
   * or a crashed API left behind.
   */
  graceMs?: number;
  now?: () => number;
  log?: (message: string) => void;
}

export const DEFAULT_UPLOAD_GRACE_MS = 60 * 60 * 1000;
export const DEFAULT_SWEEP_INTERVAL_MS = 5 * 60 * 1000;

/** One request's uploads as the janitor sees them. */
export interface UploadedBatch {
  /** The folder's key prefix (ends in `/`). */
  prefix: string;
  keys: string[];
  /** The pipeline its claim names; undefined without a claim (a crashed request's leftovers). */
  workflowId?: string;
  /** When the claim was written; the epoch without one, so such a batch counts as old. */
  since: Date;
}

/**
 * Deletes uploaded selfies that are no longer needed: those of a pipeline past its retention
 * (SELFIE_RETENTION, by the run's status and PipelineStage search attribute), and, after the grace
 * period, those with no pipeline at all. Leaves a batch alone when Temporal cannot be asked.
 * Returns the prefixes of the batches removed.
 */
export async function sweepUploads(options: UploadJanitorOptions): Promise<string[]> {
  const now = options.now?.() ?? Date.now();
  const grace = options.graceMs ?? DEFAULT_UPLOAD_GRACE_MS;
  const removed: string[] = [];
  for (const batch of await uploadedBatches(options.store)) {
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
    await deleteUploadBatch(options.store, batch.keys);
    removed.push(batch.prefix);
  }
  return removed;
}

/**
 * Every folder under `uploads/` that holds objects, with the pipeline its claim names. The claim is
 * written before the selfies and deleted after them, so a folder without one is what a crashed
 * request left behind.
 */
export async function uploadedBatches(store: BlobStore): Promise<UploadedBatch[]> {
  const byFolder = new Map<string, string[]>();
  for (const object of await store.list(UPLOADS_ROOT)) {
    const prefix = object.key.slice(0, object.key.lastIndexOf('/') + 1);
    byFolder.set(prefix, [...(byFolder.get(prefix) ?? []), object.key]);
  }
  const found: UploadedBatch[] = [];
  for (const [prefix, keys] of byFolder) {
    let workflowId: string | undefined;
    let since = new Date(0);
    const claim = keys.some(isUploadClaim) ? await store.get(`${prefix}${UPLOAD_CLAIM_NAME}`) : undefined;
    if (claim) {
      const parsed = parseClaim(await text(claim.body));
      workflowId = parsed.workflowId;
      if (parsed.since !== undefined) since = new Date(parsed.since);
    }
    found.push({ prefix, keys, since, ...(workflowId !== undefined ? { workflowId } : {}) });
  }
  return found;
}

function parseClaim(body: string): { workflowId?: string; since?: number } {
  try {
    const parsed = JSON.parse(body) as { workflowId?: unknown; since?: unknown };
    return {
      ...(typeof parsed.workflowId === 'string' ? { workflowId: parsed.workflowId } : {}),
      ...(typeof parsed.since === 'number' ? { since: parsed.since } : {}),
    };
  } catch {
    return {};
  }
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

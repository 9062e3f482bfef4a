import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  isErased,
  outcomeOfResult,
  subjectWorkflowId,
  type ManifestEntry,
  type ManifestRef,
  type SubjectOutcome,
} from '@avatar-pipeline/client/contracts/campaign/campaign';
import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import {
  CampaignManifestError,
  readCampaignSubjects,
  readCampaignSubjectsAt,
} from '@avatar-pipeline/client/campaign/manifest-store';
import type { BlobStore } from '@avatar-pipeline/client/storage/blob-store';
import { readProviderQueue, type ProviderQueueReading } from './provider-queue-signals';
import { countOpenCampaigns } from './tenant-campaigns';
import { FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';

export interface CampaignActivityDependencies {
  /** The blob store (STORAGE_URL, else BLOB_DIR): starters store the campaigns' manifests there. */
  store: BlobStore;
  /** Workflows this worker keeps cached (WORKER_MAX_CACHED_WORKFLOWS): what it can hold without replaying. */
  maxCachedWorkflows?: number;
  /** PROVIDER_MAX_RPS: the ceiling of the provider queue's rate limit. */
  providerMaxRps?: number;
}

/** Activities of the campaign workflow; they run on the pipeline task queue, not the provider's. */
export function createCampaignActivities({
  store,
  maxCachedWorkflows,
  providerMaxRps,
}: CampaignActivityDependencies) {
  return {
    /**
     * The auto window's signals: the provider task queue's backlog and this worker's provider
     * answers (activities/provider-queue-signals.ts), and the subjects this worker can hold
     * without replaying: its workflow cache, one workflow per subject (a subject's pipeline stays
     * open from start to end and collects its styles' avatars itself), and the quota: the
     * provider queue's rate limit as the server applies it, which the provider rate controller
     * sets to what the provider grants (never above PROVIDER_MAX_RPS, the quota before it has).
     */
    async observeProviderQueue(input: {
      providerTaskQueue: string;
      /** The campaign's own task queue (its pipelines run there): how far behind its workers are. */
      workflowTaskQueue?: string;
      /** The campaign's tenant: how many of its campaigns share its window. */
      fairnessKey?: string;
    }): Promise<
      ProviderQueueReading & { workerCapacity?: number; quotaRps?: number; campaignsSharing?: number }
    > {
      const { client } = Context.current();
      const { fairnessKey, ...queues } = input;
      const [{ queueRateLimit, ...reading }, campaignsSharing] = await Promise.all([
        readProviderQueue(client, queues),
        fairnessKey === undefined
          ? undefined
          : countOpenCampaigns(client, fairnessKey, queues.workflowTaskQueue),
      ]);
      return {
        ...reading,
        ...(campaignsSharing !== undefined ? { campaignsSharing } : {}),
        ...(maxCachedWorkflows ? { workerCapacity: maxCachedWorkflows } : {}),
        ...(providerMaxRps ? { quotaRps: Math.min(providerMaxRps, queueRateLimit ?? providerMaxRps) } : {}),
      };
    },

    /**
     * Which of the campaign's running subjects (manifest indexes) have a pipeline that closed
     * without reporting its end: terminated, timed out, or a report lost.
     */
    async findClosedChildren(input: {
      campaignId: string;
      manifest: ManifestRef;
      indexes: number[];
    }): Promise<ClosedChild[]> {
      const subjects = await manifestRead(() => readCampaignSubjectsAt(input.manifest, store, input.indexes));
      const children = input.indexes.flatMap((index, i) => {
        const subject = subjects[i];
        if (!subject) throw new Error(`subject #${index} is missing from the campaign manifest`);
        // An erased subject's pipeline was closed (and reported) before its line was erased.
        return isErased(subject) ? [] : [{ index, workflowId: subjectWorkflowId(input.campaignId, subject) }];
      });
      return closedChildren(Context.current().client, children);
    },

    /** A page of the campaign's subjects, read from the manifest the starter stored. */
    async readCampaignSubjects(input: {
      manifest: ManifestRef;
      from: number;
      count: number;
    }): Promise<ManifestEntry[]> {
      return manifestRead(() => readCampaignSubjects(input.manifest, store, input.from, input.count));
    },
  };
}

/** A manifest that cannot be read fails the activity for good when waiting cannot help (CampaignManifestError.permanent). */
async function manifestRead<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof CampaignManifestError) {
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.campaignManifest,
        message: err.message,
        nonRetryable: err.permanent,
      });
    }
    throw err;
  }
}

export type CampaignActivities = ReturnType<typeof createCampaignActivities>;

/** A campaign's child found closed, and the outcome it never reported. */
export interface ClosedChild {
  index: number;
  outcome: SubjectOutcome;
}

/** Children described at once: a check covers every long-running child of a campaign. */
const DESCRIBE_CONCURRENCY = 16;

/**
 * Describes each child by workflow id (so its latest run: a child reset to a new run is the run it
 * became) and answers the ones that have closed, each with the outcome its close implies.
 */
async function closedChildren(
  client: Client,
  children: { index: number; workflowId: string }[],
): Promise<ClosedChild[]> {
  const closed: ClosedChild[] = [];
  for (let start = 0; start < children.length; start += DESCRIBE_CONCURRENCY) {
    const batch = children.slice(start, start + DESCRIBE_CONCURRENCY);
    const outcomes = await Promise.all(batch.map((child) => closeOutcome(client, child.workflowId)));
    outcomes.forEach((outcome, i) => outcome && closed.push({ index: batch[i]!.index, outcome }));
    Context.current().heartbeat(start);
  }
  return closed;
}

/** Undefined while the child runs; otherwise how it ended, in the campaign's words. */
async function closeOutcome(client: Client, workflowId: string): Promise<SubjectOutcome | undefined> {
  const handle = client.workflow.getHandle(workflowId);
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    return { status: 'FAILED', error: `its pipeline ${workflowId} no longer exists (deleted?)` };
  }
  const unreported = `before it reported its end to the campaign`;
  switch (status) {
    case 'RUNNING':
    case 'CONTINUED_AS_NEW':
      return undefined;
    case 'TERMINATED':
      return {
        status: 'FAILED',
        error: `terminated: its pipeline ${workflowId} was terminated ${unreported}`,
      };
    case 'TIMED_OUT':
      return { status: 'FAILED', error: `timed out: its pipeline ${workflowId} timed out ${unreported}` };
    case 'CANCELLED':
      return { status: 'CANCELLED' };
    case 'COMPLETED':
    case 'FAILED':
      try {
        return outcomeOfResult((await handle.result()) as PipelineResult);
      } catch (err) {
        if (!(err instanceof WorkflowFailedError)) throw err;
        let root: Error = err;
        for (let depth = 0; depth < 10 && root.cause instanceof Error; depth++) root = root.cause;
        return { status: 'FAILED', error: root.message };
      }
    default:
      return { status: 'FAILED', error: `its pipeline ${workflowId} ended ${status} ${unreported}` };
  }
}

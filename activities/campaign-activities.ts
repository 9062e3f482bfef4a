import { ApplicationFailure, Context } from '@temporalio/activity';
import type { CampaignSubject, ManifestRef } from '../src/contracts/campaign';
import { CampaignManifestError, readCampaignSubjects } from '../src/campaign/manifest-store';
import { readProviderQueue, type ProviderQueueReading } from '../src/campaign/provider-queue-signals';

export interface CampaignActivityDependencies {
  /** CAMPAIGN_DIR: the only place manifests are read from. */
  manifestDir: string;
  /** Workflows this worker keeps cached (WORKER_MAX_CACHED_WORKFLOWS): what it can hold without replaying. */
  maxCachedWorkflows?: number;
}

/** Activities of the campaign workflow; they run on the pipeline task queue, not the provider's. */
export function createCampaignActivities({ manifestDir, maxCachedWorkflows }: CampaignActivityDependencies) {
  return {
    /**
     * The auto window's signals: the provider task queue's backlog and this worker's provider
     * answers (src/campaign/provider-queue-signals.ts), and the subjects this worker can hold
     * (its workflow cache over the workflows a subject keeps open: its pipeline and one per style).
     */
    async observeProviderQueue(input: {
      providerTaskQueue: string;
      stylesPerSubject: number;
    }): Promise<ProviderQueueReading & { workerCapacity?: number }> {
      const reading = await readProviderQueue(Context.current().client, input.providerTaskQueue);
      return maxCachedWorkflows
        ? { ...reading, workerCapacity: Math.floor(maxCachedWorkflows / (1 + input.stylesPerSubject)) }
        : reading;
    },

    /** A page of the campaign's subjects, read from the manifest file the starter stored. */
    async readCampaignSubjects(input: {
      manifest: ManifestRef;
      from: number;
      count: number;
    }): Promise<CampaignSubject[]> {
      try {
        return await readCampaignSubjects(input.manifest, manifestDir, input.from, input.count);
      } catch (err) {
        if (err instanceof CampaignManifestError) {
          throw ApplicationFailure.create({
            type: 'CampaignManifest',
            message: err.message,
            nonRetryable: err.permanent,
          });
        }
        throw err;
      }
    },
  };
}

export type CampaignActivities = ReturnType<typeof createCampaignActivities>;

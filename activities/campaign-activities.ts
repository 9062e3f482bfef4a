import { ApplicationFailure } from '@temporalio/activity';
import type { CampaignSubject, ManifestRef } from '../src/contracts/campaign';
import { CampaignManifestError, readCampaignSubjects } from '../src/campaign/manifest-store';

export interface CampaignActivityDependencies {
  /** CAMPAIGN_DIR: the only place manifests are read from. */
  manifestDir: string;
}

/** Activities of the campaign workflow; they run on the pipeline task queue, not the provider's. */
export function createCampaignActivities({ manifestDir }: CampaignActivityDependencies) {
  return {
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

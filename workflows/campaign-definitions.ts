import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  CampaignLedger,
  CampaignProgress,
  RetryReport,
  RetryRequest,
} from '../src/contracts/campaign-state';

export const CAMPAIGN_WORKFLOW_TYPE = 'avatarCampaign';

/** Counts by state, throughput and estimated finish; answered after the campaign closed too. */
export const campaignProgressQuery = defineQuery<CampaignProgress>('campaignProgress');

/** Every subject's status, model, avatar count and error so far (compact; joined with the manifest by clients). */
export const campaignLedgerQuery = defineQuery<CampaignLedger>('campaignLedger');

/** Stop starting subjects; those running go on. Answers the progress after the change. */
export const pauseCampaignUpdate = defineUpdate<CampaignProgress>('pauseCampaign');
export const resumeCampaignUpdate = defineUpdate<CampaignProgress>('resumeCampaign');

/** Stop starting subjects and cancel the running ones; the campaign then ends with its summary. */
export const cancelCampaignUpdate = defineUpdate<CampaignProgress>('cancelCampaign');

/** Run failed (or cancelled) subjects again; refused when a named subject cannot be retried. */
export const retryCampaignUpdate = defineUpdate<RetryReport, [RetryRequest]>('retryCampaign');

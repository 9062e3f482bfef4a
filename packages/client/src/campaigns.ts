/**
 * @avatar-pipeline/client/campaigns: batch campaigns' client side. A campaign's subjects are stored
 * in the blob store the workers read (their manifest never passes through workflow history), so
 * each function takes that store: `openBlobStoreFromEnv()` opens it as the operator configured the
 * workers (STORAGE_URL, else BLOB_DIR). It is an entry of its own because an `s3://` store loads
 * the AWS SDK (optional peers), which apps that start no campaign neither install nor bundle.
 */
export {
  campaignWorkflowIdOf,
  getCampaign,
  newCampaignId,
  startCampaign,
  subjectWorkflowId,
} from './campaign/campaigns';
export type { CampaignDescription, CampaignHandle, StartCampaignOptions } from './campaign/campaigns';
export { listCampaignPage } from './campaign/list-campaigns';
export type { CampaignListing, CampaignListingPage, ListCampaignsOptions } from './campaign/list-campaigns';
export { eraseFromCampaigns } from './campaign/erase-from-campaigns';
export type { CampaignErasure } from './campaign/erase-from-campaigns';
export { CampaignManifestError } from './campaign/manifest-store';
export {
  campaignIdSchema,
  campaignOptionsSchema,
  campaignSubjectSchema,
} from './contracts/campaign/campaign';
export type {
  CampaignOptions,
  CampaignProgress,
  CampaignResultRow,
  CampaignSubject,
  CampaignSummary,
  RetryReport,
  SubjectSummary,
} from './contracts/campaign/campaign';
export { campaignShare } from './contracts/campaign/campaign-share';
export type { CampaignShare } from './contracts/campaign/campaign-share';
export { openBlobStoreFromEnv } from './storage/env-blob-store';
export type { BlobStore } from './storage/blob-store';

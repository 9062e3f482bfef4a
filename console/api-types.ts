/**
 * The /v1 answers the console reads, typed from the API's own zod schemas (type imports only:
 * nothing of the server is bundled).
 */
import type { z } from 'zod';
import type {
  campaignListSchema,
  campaignProgressSchema,
  campaignStartedSchema,
  campaignStatusSchema,
  campaignSummarySchema,
} from '../src/campaign/api/schemas';
import type { modelListSchema } from '../src/api/model-schemas';
import type { usageSchema } from '@avatar-pipeline/client/contracts/usage';
import type {
  pipelineProgressSchema,
  pipelineResultSchema,
  pipelineStatusSchema,
  startedSchema,
  stylesSchema,
} from '../src/api/response-schemas';

export type PipelineStatus = z.infer<typeof pipelineStatusSchema>;
export type PipelineProgress = z.infer<typeof pipelineProgressSchema>;
export type PipelineResult = z.infer<typeof pipelineResultSchema>;
export type RunStarted = z.infer<typeof startedSchema>;
export type Styles = z.infer<typeof stylesSchema>;
export type Models = z.infer<typeof modelListSchema>;
export type CampaignStatus = z.infer<typeof campaignStatusSchema>;
export type CampaignProgress = z.infer<typeof campaignProgressSchema>;
export type CampaignStarted = z.infer<typeof campaignStartedSchema>;
export type CampaignList = z.infer<typeof campaignListSchema>;
export type Usage = z.infer<typeof usageSchema>;
export type CampaignSummary = z.infer<typeof campaignSummarySchema>;

/** One row of GET /v1/pipelines. */
export interface PipelineListItem {
  workflowId: string;
  kind: 'pipeline' | 'training' | 'generation';
  state: PipelineStatus['state'];
  stage?: string;
  startedAt: string;
  closedAt?: string;
  subjectId?: string;
  campaignId?: string;
  modelId?: number;
}

/** DELETE /v1/subjects/{subjectId}. */
export interface ForgetReport {
  subject: string;
  storedObjects: number;
  runs: Array<{ workflowId: string; status: string }>;
  webhookDeliveries: number;
  webhookRedeliveries: number;
  providerHeld: { modelIds: number[]; orderIds: number[]; canDelete: false };
}

/**
 * The custom search attributes of a pipeline run, shared by workflow code (which keeps the stage
 * and model current) and by every starter (which sets subject and campaign at start). Operators
 * filter runs with them in the Temporal UI and with `temporal workflow list --query`.
 *
 * Workflow-safe: imports nothing but @temporalio/common.
 */
import {
  defineSearchAttributeKey,
  SearchAttributeType,
  TypedSearchAttributes,
  type SearchAttributePair,
} from '@temporalio/common';
import type { PipelineStage } from './pipeline-state';

/**
 * Who the run is for: the caller's subject id, or with payload encryption on a keyed hash of it
 * (search attributes are stored in plaintext, so personal data never goes here as is).
 */
export const SubjectIdAttribute = defineSearchAttributeKey('SubjectId', SearchAttributeType.KEYWORD);
export const CampaignIdAttribute = defineSearchAttributeKey('CampaignId', SearchAttributeType.KEYWORD);
/** Whose run it is: the tenant of the credential that started it (or of the campaign that did). */
export const TenantAttribute = defineSearchAttributeKey('AvatarTenant', SearchAttributeType.KEYWORD);
/** The provider's model (training order) id, once the pipeline has one. */
export const ModelIdAttribute = defineSearchAttributeKey('ModelId', SearchAttributeType.INT);
/** The pipeline's stage (creating-model, uploading-selfies, …, done, failed, cancelled). */
export const PipelineStageAttribute = defineSearchAttributeKey('PipelineStage', SearchAttributeType.KEYWORD);

/** Every custom search attribute the package uses: what setup registers on a namespace. */
export const PIPELINE_SEARCH_ATTRIBUTES = [
  TenantAttribute,
  SubjectIdAttribute,
  CampaignIdAttribute,
  ModelIdAttribute,
  PipelineStageAttribute,
] as const;

/** What a campaign itself is found by: its tenant, and its CampaignId (which its pipelines carry too). */
export function campaignStartAttributes(tenant: string, campaignId: string): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: TenantAttribute, value: tenant },
    { key: CampaignIdAttribute, value: campaignId },
  ]);
}

/** The stage a pipeline is in when it starts. */
export const INITIAL_PIPELINE_STAGE: PipelineStage = 'creating-model';

export interface PipelineStartAttributes {
  tenant: string;
  /** The value for SubjectId: the subject id, or its search token when payloads are encrypted. */
  subjectKey?: string;
  campaignId?: string;
}

/**
 * The search attributes to start a pipeline with (client or parent workflow). A pipeline started
 * with PipelineStage set keeps it and ModelId current; one started without them (e.g. on a
 * namespace that lacks them) runs the same, only without these columns.
 */
export function pipelineStartAttributes(start: PipelineStartAttributes): TypedSearchAttributes {
  const pairs: SearchAttributePair[] = [
    { key: TenantAttribute, value: start.tenant },
    { key: PipelineStageAttribute, value: INITIAL_PIPELINE_STAGE },
  ];
  if (start.subjectKey) pairs.push({ key: SubjectIdAttribute, value: start.subjectKey });
  if (start.campaignId) pairs.push({ key: CampaignIdAttribute, value: start.campaignId });
  return new TypedSearchAttributes(pairs);
}

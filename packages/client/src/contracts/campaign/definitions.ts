/**
 * How clients talk to the campaign workflow: its signature, signals, queries and updates. The
 * campaign workflow implements these; the campaign client, API and CLI use them without importing it.
 */
import { defineQuery, defineSignal, defineUpdate } from '../message-definitions';
import type {
  CampaignInput,
  LedgerView,
  FinalLedger,
  CampaignProgress,
  RetryReport,
  RetryRequest,
  SubjectEnded,
  SubjectsErased,
} from './campaign-state';

/** The campaign workflow's signature, for typed handles. */
export type AvatarCampaignWorkflow = (input: CampaignInput) => Promise<FinalLedger>;

/**
 * Sent by a campaign's pipeline to the campaign when it ends. Addressed by workflow id, so it
 * reaches whichever run of the campaign is current: children outlive the run that started them.
 */
export const subjectEndedSignal = defineSignal<[SubjectEnded]>('campaignSubjectEnded');

/**
 * Sent by a campaign's pipeline to the campaign when its review gate opens: from then on it waits
 * for a person, not for the provider, and the campaign's window starts another subject in its place.
 */
export const subjectAwaitingReviewSignal = defineSignal<[{ workflowId: string }]>(
  'campaignSubjectAwaitingReview',
);

/**
 * Sent by erasure (packages/client/src/erasure/forget-subject.ts) to a running campaign after it rewrote the
 * campaign's stored manifest: the campaign drops those subjects from the page it holds and from
 * its progress, never starts them, cancels their pipeline if it runs, and counts them cancelled.
 */
export const subjectsErasedSignal = defineSignal<[SubjectsErased]>('campaignSubjectsErased');

/**
 * The memo field holding the campaign's latest progress, rewritten at every change of it (the
 * query's answer at that moment). Describe reads it from the server alone: it answers while the
 * campaign's workflow task is busy or replayed after a continue-as-new, and with no worker running.
 */
export const CAMPAIGN_PROGRESS_MEMO = 'progress';

/** Counts by state, throughput and estimated finish; answered after the campaign closed too. */
export const campaignProgressQuery = defineQuery<CampaignProgress>('campaignProgress');

/** Every subject's status, model, avatar count and error so far (compact; joined with the manifest by clients). */
export const campaignLedgerQuery = defineQuery<LedgerView>('campaignLedger');

/** Stop starting subjects; those running go on. Answers the progress after the change. */
export const pauseCampaignUpdate = defineUpdate<CampaignProgress>('pauseCampaign');
export const resumeCampaignUpdate = defineUpdate<CampaignProgress>('resumeCampaign');

/** Stop starting subjects and cancel the running ones; the campaign then ends with its summary. */
export const cancelCampaignUpdate = defineUpdate<CampaignProgress>('cancelCampaign');

/** Run failed (or cancelled) subjects again; refused when a named subject cannot be retried. */
export const retryCampaignUpdate = defineUpdate<RetryReport, [RetryRequest]>('retryCampaign');

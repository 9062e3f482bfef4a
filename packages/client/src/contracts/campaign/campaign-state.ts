/**
 * Campaign types and pure helpers shared by the campaign workflow and everything that starts or
 * watches campaigns (client package, CLI, API). Workflow-safe: no runtime imports.
 */
import type { WindowState, WindowTuning } from './window-state';
import type { PollingOptions } from '../pipeline-input';
import type { PipelineResult } from '../pipeline-state';
import type { ProgressFeedCarry } from '../progress-feed';
import type { CampaignSubject } from './campaign';
import type { AvatarCheck, RunChecks } from '../quality-checks';
import type { ReviewOptions } from '../review';

/**
 * The line an erased subject's line becomes in the stored manifest (packages/client/src/campaign/manifest-store.ts):
 * it keeps the subject's place, so the ledger's indexes hold, and nothing of the person.
 */
export const ERASED_SUBJECT = { erased: true } as const;
export type ErasedSubject = typeof ERASED_SUBJECT;
/** A line of a stored manifest: a subject, or the place of one that was erased. */
export type ManifestEntry = CampaignSubject | ErasedSubject;

export function isErased(entry: unknown): entry is ErasedSubject {
  return typeof entry === 'object' && entry !== null && (entry as { erased?: unknown }).erased === true;
}

/**
 * What erasure tells a running campaign: the manifest lines it erased, by index. Indexes only, so
 * the campaign's history gains nothing that names the person.
 */
export interface SubjectsErased {
  indexes: number[];
}

/**
 * Where the workflow's activities read its subjects: the blob store's record of the manifest the
 * starter wrote (campaign/manifest-store.ts), checked by the digest it started with.
 */
export interface ManifestRef {
  /** The record's key in the blob store the starters and workers share. */
  key: string;
  sha256: string;
  total: number;
}

/** How a subject's pipeline ended, as the campaign keeps it. */
export type SubjectOutcome =
  | { status: 'DONE'; modelId: number; avatarCount: number }
  | { status: 'PARTIAL'; modelId: number; avatarCount: number; error: string }
  | { status: 'FAILED'; error: string; modelId?: number }
  | { status: 'CANCELLED' };

/** What a campaign's pipeline sends the campaign (its current run) when it ends. */
export interface SubjectEnded {
  workflowId: string;
  outcome: SubjectOutcome;
}

export type SubjectStatus = 'PENDING' | 'RUNNING' | 'DONE' | 'PARTIAL' | 'FAILED' | 'CANCELLED';

/**
 * The ledger's entries: every subject's outcome, compact enough to carry through continue-as-new at any campaign size
 * (a few bytes per subject): indexes follow the manifest file; subject ids come from it.
 */
export interface LedgerOutcomes {
  /** One character per subject: . pending, D done, P partial, F failed, C cancelled. */
  statuses: string;
  /** Model id per subject (0 = none yet). */
  modelIds: number[];
  /** Avatars collected per subject. */
  avatarCounts: number[];
  /** Why a subject failed or was partial: the provider's message where it gave one. Keyed by index. */
  errors: Record<string, string>;
  /** Runs started per subject, keyed by index, for subjects started more than once. */
  attempts: Record<string, number>;
}

/** The ledger as a campaign hands it to its next run when it continues as new, with the rest of the run's state. */
export interface CarriedLedger {
  run: number;
  /** Next manifest index never started. */
  cursor: number;
  /** Indexes queued by a retry, started before new subjects. */
  retryQueue: number[];
  outcomes: LedgerOutcomes;
  paused: boolean;
  /** Why the campaign paused itself (the budget's refusal); absent when paused by an operator, or running. */
  pausedFor?: string;
  cancelled: boolean;
  startedAtMs: number;
  /** Recent [time, finished count] samples for the throughput figure. */
  samples: [number, number][];
  /** The latest failures, newest first (a handful), with their manifest index so erasure can drop them. */
  recentFailures: { subjectId: string; error: string; index?: number }[];
  /** Erased subjects (manifest indexes) whose pipelines were still running: never listed, counted as cancelled. */
  erased?: number[];
  /** Subjects started by earlier runs and still running: [index, child workflow id, subject id]; they report their end to the current run. */
  running?: [number, string, string][];
  /** Of those, the ones held at their review gate (manifest indexes): outside the window. */
  reviewing?: number[];
  /** The auto window as the previous run left it. */
  window?: WindowState;
  /** The progress feed's count and latest snapshots, so a watcher's Last-Event-ID stays valid across runs. */
  feed?: ProgressFeedCarry<CampaignProgress>;
}

/** The campaign input without the state a run carries over. */
export type CampaignSettings = Omit<CampaignInput, 'carried' | 'retry'>;

/** The ledger as it stands (query): what summaries and exports are built from while a campaign runs. */
export interface LedgerView {
  manifest: ManifestRef;
  state: CampaignState;
  counts: SubjectCounts;
  outcomes: LedgerOutcomes;
  startedAt: string;
}

/** How the in-flight window is sized: from the provider's signals (capped), or fixed. */
export type CampaignWindowSettings =
  | { mode: 'auto'; cap: number; sampleEveryMs: number; tuning: Partial<Omit<WindowTuning, 'cap'>> }
  | { mode: 'fixed'; size: number };

/** The window as progress shows it: its size now and why. */
export interface CampaignWindowView {
  mode: 'auto' | 'fixed';
  size: number;
  /** The auto window's bound (`--max-in-flight N`, or the default). */
  cap?: number;
  reason: string;
  detail: string;
  /** The provider's accepted requests/s at the window's last sample, and the quota: when it measured both. */
  providerRps?: number;
  quotaRps?: number;
}

export interface CampaignInput {
  /** Whose campaign it is: its pipelines carry the tenant too (search attribute, input). */
  tenant: string;
  manifest: ManifestRef;
  /** The window's cap (auto) or size (fixed), as window says. */
  maxInFlight: number;
  window: CampaignWindowSettings;
  /**
   * Fairness key of the campaign's work on the task queues: its tenant, so that a tenant's
   * campaigns share one share (campaign-share.ts). Absent in campaigns started before tenants:
   * their key is the campaign id.
   */
  fairnessKey?: string;
  /** Weight of the fairness key (the operator's: tenants file or CLI). */
  fairnessWeight: number;
  priorityKey: number;
  subjectsPerRun: number;
  pageSize: number;
  /**
   * A subject unheard of this long gets its pipeline looked up (is it still open?): one that was
   * terminated, timed out or otherwise closed without reporting its end is recorded as ended.
   */
  childCheckMs: number;
  /** Resolved pipeline settings every subject gets. */
  pipeline: {
    trainingDeadlineMs: number;
    generationDeadlineMs: number;
    polling: PollingOptions;
    /** Queue of the child pipelines; the campaign's own queue when absent. */
    taskQueue?: string;
    /** Queue of provider activities (rate-limited provider worker). */
    providerTaskQueue: string;
    /** Workflow type of the children; a stand-in only in tests. */
    workflowType?: string;
    /** Workflow type of the children of subjects with a modelId (generation only); a stand-in only in tests. */
    generationWorkflowType?: string;
    /** ARCHIVE_AVATARS of the starter: the pipelines copy their avatars into the blob store. */
    archiveAvatars?: boolean;
    /** SELFIE_CHECKS and AVATAR_CHECKS of the starter: each pipeline checks its subject's selfies before its first provider write, and every run its avatars. */
    checks?: RunChecks;
    /** Every subject's run waits for a person's decisions once generated (review-gate.ts). */
    review?: ReviewOptions;
  };
  /**
   * The starter's tenants file prices provider work: each subject's run reserves what it may cost
   * from the tenant's budget before it starts (as the workers' tenants file says), and a refusal
   * pauses the campaign, with the reason in its progress, until it is resumed or cancelled.
   */
  budgeted?: boolean;
  carried?: CarriedLedger;
  /** Subjects to run again when a campaign that had ended is restarted (applied once, not carried). */
  retry?: RetryRequest;
}

/** How long a subject may go unheard before its pipeline is looked up, unless the caller says. */
export const DEFAULT_CHILD_CHECK_MS = 5 * 60_000;

export const CAMPAIGN_STATES = ['running', 'paused', 'cancelling', 'completed', 'cancelled'] as const;
export type CampaignState = (typeof CAMPAIGN_STATES)[number];

export interface SubjectCounts {
  pending: number;
  running: number;
  done: number;
  partial: number;
  failed: number;
  cancelled: number;
}

export interface CampaignProgress {
  campaignId: string;
  state: CampaignState;
  /**
   * Why a paused campaign paused itself: the tenant's budget refused the next subject's run (the
   * refusal's words). Absent when an operator paused it. Resume once the budget is raised, or cancel.
   */
  pausedFor?: string;
  total: number;
  counts: SubjectCounts;
  maxInFlight: number;
  /** The in-flight window now and why it has that size. */
  window: CampaignWindowView;
  /** Subjects whose pipelines are running now. */
  inFlight: string[];
  /**
   * Subjects whose runs wait at their review gate (campaigns with review): counted in
   * `counts.running`, but outside the window, which goes on starting others. Absent without review.
   */
  awaitingReview?: { count: number; subjects: string[] };
  /** Workflow runs so far (1 + times continued as new). */
  run: number;
  startedAt: string;
  elapsedMs: number;
  /** Subjects finished per minute, over the recent past. */
  throughputPerMinute: number;
  /** Time until every pending subject is finished at that rate; absent while unknown. */
  etaMs?: number;
  /** The latest failures, newest first. */
  recentFailures: { subjectId: string; error: string }[];
}

/** The ledger at the campaign's end, the workflow's result: compact; the client joins it with the manifest into a CampaignSummary. */
export interface FinalLedger {
  campaignId: string;
  state: 'completed' | 'cancelled';
  manifest: ManifestRef;
  /** The campaign's settings, so that a retry after the end restarts it as it was. */
  settings: CampaignSettings;
  total: number;
  counts: SubjectCounts;
  outcomes: LedgerOutcomes;
  startedAt: string;
  finishedAt: string;
  runs: number;
}

/** The campaign summary of docs/contracts.md. */
export interface CampaignSummary {
  workflowId: string;
  status: 'COMPLETED' | 'CANCELLED';
  total: number;
  /** Subjects whose pipeline finished (DONE, or PARTIAL with some styles). */
  succeeded: number;
  failed: number;
  partial: number;
  cancelled: number;
  startedAt: string;
  finishedAt: string;
  subjects: SubjectSummary[];
}

export interface SubjectSummary {
  subjectId: string;
  status: Exclude<SubjectStatus, 'RUNNING'>;
  workflowId: string;
  modelId?: number;
  avatarCount?: number;
  error?: string;
  attempts?: number;
}

/** Which subjects to run again: indexes into the manifest (the client maps subject ids); all failed and cancelled ones when absent. */
export interface RetryRequest {
  indexes?: number[];
}

export interface RetryReport {
  /** Subject indexes queued to run again. */
  queued: number[];
  progress: CampaignProgress;
}

/** One exported avatar: subject, model, style, avatar id, the provider's image URL and, when archived, its copy's key. */
export interface CampaignResultRow {
  subjectId: string;
  /** The model the avatar was generated under: trained for the subject, or the manifest's modelId. */
  modelId: number;
  styleId: number;
  avatarId: number;
  imageUrl: string;
  archiveKey?: string;
  /** The avatar checks' verdict (AVATAR_CHECKS); absent when the run checked no avatars. */
  check?: AvatarCheck;
}

/**
 * The subject's outcome from its pipeline's (or generation run's) result. Its avatar count leaves
 * out avatars that failed their checks: they are reported in the results, never counted as made.
 */
export function outcomeOfResult(result: PipelineResult): SubjectOutcome {
  const avatarCount = result.generations.reduce(
    (n, g) => n + g.avatars.filter((a) => a.check?.passed !== false).length,
    0,
  );
  if (result.status === 'DONE') return { status: 'DONE', modelId: result.modelId, avatarCount };
  const error = result.generations
    .filter((g) => g.status !== 'DONE')
    .map((g) => `style ${g.styleId}: ${g.error ?? g.status}`)
    .join('; ');
  return { status: 'PARTIAL', modelId: result.modelId, avatarCount, error };
}

/** The state of an ended campaign, for restarting it under the same id (retry after the end). */
export function carriedLedgerFrom(final: FinalLedger): CarriedLedger {
  return {
    run: final.runs,
    cursor: final.total,
    retryQueue: [],
    outcomes: final.outcomes,
    paused: false,
    cancelled: false,
    startedAtMs: Date.parse(final.startedAt),
    samples: [],
    recentFailures: [],
  };
}

/**
 * Child pipelines are named after the campaign and the subject, so each person has one stable id.
 * Workflow ids are stored in plaintext, so with payload encryption the subject's keyed hash
 * (its searchKey, fixed when the campaign was started) stands in for the id.
 */
export function subjectWorkflowId(
  campaignId: string,
  subject: { subjectId: string; searchKey?: string | undefined },
): string {
  return `${campaignId}/${subject.searchKey ?? subject.subjectId}`;
}

/** The campaign a subject's run (subjectWorkflowId) belongs to; undefined for a run of no campaign (campaign ids hold no "/"). */
export function campaignOfRun(workflowId: string): string | undefined {
  const slash = workflowId.indexOf('/');
  return slash > 0 ? workflowId.slice(0, slash) : undefined;
}

export const STATUS_CODES: Readonly<Record<Exclude<SubjectStatus, 'RUNNING'>, string>> = {
  PENDING: '.',
  DONE: 'D',
  PARTIAL: 'P',
  FAILED: 'F',
  CANCELLED: 'C',
};

export function statusOfCode(code: string): Exclude<SubjectStatus, 'RUNNING'> {
  switch (code) {
    case 'D':
      return 'DONE';
    case 'P':
      return 'PARTIAL';
    case 'F':
      return 'FAILED';
    case 'C':
      return 'CANCELLED';
    default:
      return 'PENDING';
  }
}

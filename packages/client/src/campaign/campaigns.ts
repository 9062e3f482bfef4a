import type { Pricing } from '../client/budget';
import { randomBytes } from 'node:crypto';
import { pollingWithin } from '../contracts/polling-bounds';
import type {
  Client,
  WorkflowExecutionDescription,
  WorkflowExecutionStatusName,
  WorkflowHandle,
} from '@temporalio/client';
import { WorkflowUpdateFailedError, WorkflowIdReusePolicy } from '@temporalio/client';
import { z } from 'zod';
import {
  campaignIdSchema,
  campaignOptionsSchema,
  campaignSubjectSchema,
  carriedLedgerFrom,
  isErased,
  statusOfCode,
  subjectWorkflowId,
  type CampaignInput,
  type LedgerView,
  type CampaignOptions,
  type FinalLedger,
  type CampaignProgress,
  type CampaignResultRow,
  type CampaignSettings,
  type CampaignSubject,
  type CampaignSummary,
  type ManifestEntry,
  type ManifestRef,
  type RetryReport,
  type SubjectSummary,
} from '../contracts/campaign/campaign';
import type { PipelineResult } from '../contracts/pipeline-state';
import { campaignStartAttributes } from '../contracts/search-attributes';
import { DEFAULT_TENANT, tenantWorkflowId } from '../contracts/workflow-ids';
import { encryptionCodecOf } from '../codec/client-data-converter';
import { runExists, startRunOnce } from '../client/start-run';
import { campaignSubjectIds, readCampaignSubjects, storeCampaignManifest } from './manifest-store';
import { WORKFLOW_TYPES } from '../contracts/workflow-definitions';
import {
  type AvatarCampaignWorkflow,
  CAMPAIGN_PROGRESS_MEMO,
  campaignLedgerQuery,
  campaignProgressQuery,
  cancelCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  retryCampaignUpdate,
} from '../contracts/campaign/definitions';

import { campaignShare, type CampaignShare } from '../contracts/campaign/campaign-share';
import { InputError } from '../errors';
import { aged, manifestRefOf, recordedProgress } from './recorded-progress';
import type { RunPlacement } from '../config/run-placement';
import type { BlobStore } from '../storage/blob-store';
import { runChecksOf } from '../client/selfie-check';

/** The placement's task queue takes the campaign and its pipelines; its archiving applies to each pipeline. */
export interface StartCampaignOptions extends RunPlacement {
  /**
   * Whose campaign: its workflow id is `<tenant>.<campaign id>` (tenantWorkflowId) and its pipelines
   * are the tenant's. Default: DEFAULT_TENANT (`default`).
   */
  tenant?: string;
  /** The blob store the workers read (STORAGE_URL, else BLOB_DIR): the subjects are stored there for them. */
  store: BlobStore;
  /** Also the idempotency key: starting the same id again attaches to that campaign. */
  campaignId?: string;
  options?: CampaignOptions;
  /** Default when options.maxInFlight is not given (CAMPAIGN_MAX_IN_FLIGHT): `auto` or the auto window's cap. */
  defaultMaxInFlight?: number | 'auto';
  /**
   * The operator's share for this campaign: its tenant is its fairness key, the tenant's weight
   * and priority ceiling apply (campaign-share.ts). Default: tenant `default`, weight 1, priority 4.
   */
  share?: CampaignShare;
  /**
   * The tenant's work is priced (the operator's tenants file): each subject's run reserves from
   * the tenant's budget before it starts, and the campaign pauses at the budget (CampaignInput.budgeted).
   */
  pricing?: Pricing;
  /** Workflow type of the children; tests use a stand-in. */
  pipelineWorkflowType?: string;
  /** Workflow type of the children of subjects with a modelId; tests use a stand-in. */
  generationWorkflowType?: string;
}

/** What `progress()` reads of the campaign's description (a caller that has described it passes it on). */
export type CampaignDescription = Pick<WorkflowExecutionDescription, 'status' | 'memo'>;

export interface CampaignHandle {
  campaignId: string;
  /**
   * Counts by state, throughput, estimated finish: the latest progress the campaign recorded (its
   * memo, read by describe; no worker needed), its clock moved on to now. Only a campaign no worker
   * has picked up yet is asked by query. Rejects for a campaign that ended other than completing
   * (terminated, failed, timed out): `status()` says how. `described`: the campaign's description,
   * when the caller has just read it (no second describe).
   */
  progress(described?: CampaignDescription): Promise<CampaignProgress>;
  /**
   * A progress snapshot (the event stream's, say) without the subjects erased since it was taken:
   * as every progress this handle answers. Read from the stored manifest, which erasure rewrites.
   */
  visibleProgress(progress: CampaignProgress): Promise<CampaignProgress>;
  /** Waits for the end and returns the campaign summary of docs/contracts.md. */
  result(): Promise<CampaignSummary>;
  /** The summary as it stands now: at the end, or while running (from the ledger query). */
  summary(): Promise<CampaignSummary>;
  pause(): Promise<CampaignProgress>;
  resume(): Promise<CampaignProgress>;
  /** Cancels the running subjects and starts no more; the campaign then ends with its summary. */
  cancel(): Promise<CampaignProgress>;
  /**
   * Runs failed (and cancelled) subjects again — all of them, or the ones named. While the
   * campaign runs they join its queue; after it ended, the campaign restarts under the same id
   * with its ledger and runs just those.
   */
  retry(subjectIds?: string[]): Promise<RetryReport>;
  status(): Promise<WorkflowExecutionStatusName>;
  /** Every collected avatar (subject, style, avatar id, image URL) of the subjects finished so far. */
  resultRows(): AsyncGenerator<CampaignResultRow>;
  raw: WorkflowHandle<AvatarCampaignWorkflow>;
}

/**
 * Starts a campaign over its subjects, each checked against campaignSubjectSchema (the platform's
 * manifest reader makes them from a CSV or JSONL file, and checks the selfies too); a bad subject
 * is an InputError naming `subjects.<index>.<field>`, and nothing starts. Nothing starts either
 * when there are none.
 */
export async function startCampaign(
  client: Client,
  subjects: CampaignSubject[],
  options: StartCampaignOptions,
): Promise<CampaignHandle> {
  if (subjects.length === 0)
    throw new InputError([{ path: 'manifest', message: 'has no valid subject to start' }]);
  checkSubjects(subjects);
  const parsed = campaignOptionsSchema.safeParse(options.options ?? {});
  if (!parsed.success) throw InputError.fromZod(parsed.error, ['options']);
  // Held within the bounds, not refused: the API hands its options over with defaults filled in.
  const settings = { ...parsed.data, polling: pollingWithin(parsed.data.polling, options.pollingBounds) };
  // Without a share: the tenant of a bare API token (DEFAULT_TENANT), with the defaults.
  const share = options.share ?? campaignShare('default');
  const named = options.campaignId === undefined ? undefined : campaignIdSchema.safeParse(options.campaignId);
  if (named && !named.success) throw InputError.fromZod(named.error, ['campaignId']);
  const tenant = options.tenant ?? DEFAULT_TENANT;
  const campaignId = tenantWorkflowId(tenant, named?.data ?? newCampaignId());
  // Search attributes are plaintext on the server: with payload encryption, only a keyed hash of the id.
  const codec = encryptionCodecOf(client.options.loadedDataConverter);
  const keyed = subjects.map((s) => ({
    ...s,
    searchKey: codec ? codec.subjectToken(s.subjectId) : s.subjectId,
  }));
  const manifest = await storeCampaignManifest(options.store, campaignId, keyed);
  // Thousands of subjects are not checked before the start: each pipeline checks its own selfies
  // before its first provider write, and a refused subject ends failed, naming the selfie.
  const checks = runChecksOf(options.checks, 'in-run');
  const input: CampaignInput = {
    tenant,
    manifest,
    ...campaignWindow(settings, options.defaultMaxInFlight),
    ...share,
    subjectsPerRun: settings.subjectsPerRun,
    pageSize: settings.pageSize,
    childCheckMs: settings.childCheckMs,
    ...(options.pricing ? { budgeted: true } : {}),
    pipeline: {
      trainingDeadlineMs: settings.trainingDeadlineMs,
      generationDeadlineMs: settings.generationDeadlineMs,
      polling: settings.polling,
      providerTaskQueue: options.providerTaskQueue,
      ...(options.pipelineWorkflowType ? { workflowType: options.pipelineWorkflowType } : {}),
      ...(options.generationWorkflowType ? { generationWorkflowType: options.generationWorkflowType } : {}),
      ...(options.archiveAvatars ? { archiveAvatars: true } : {}),
      ...(checks ? { checks } : {}),
      ...(settings.review?.required ? { review: settings.review } : {}),
    },
  };
  // Not created: the same id (and, as the store checked, the same subjects) was started before,
  // open or closed. The handle attaches to that campaign.
  await startRunOnce(client, {
    workflowType: WORKFLOW_TYPES.campaign,
    workflowId: campaignId,
    taskQueue: options.taskQueue,
    input,
    priority: campaignPriority(input, campaignId),
    searchAttributes: campaignStartAttributes(tenant, campaignId),
    // The fairness key tells the in-flight window which campaigns share the tenant's share; the
    // manifest lets a status read (describe) drop erased subjects without asking the workflow.
    memo: { kind: 'campaign', total: subjects.length, fairnessKey: share.fairnessKey, manifest },
    summary: `Campaign of ${subjects.length} subject${subjects.length === 1 ? '' : 's'}, ${
      input.window.mode === 'fixed'
        ? `${input.maxInFlight} at a time`
        : `in-flight window sized from the provider's signals, up to ${input.maxInFlight}`
    }`,
  });
  return getCampaign(client, campaignId, { store: options.store });
}

/** What the campaign's own workflow is dispatched with: as its pipelines (workflows/campaign.ts). */
function campaignPriority(settings: CampaignSettings, campaignId: string) {
  return {
    priorityKey: settings.priorityKey,
    fairnessKey: settings.fairnessKey ?? campaignId,
    fairnessWeight: settings.fairnessWeight,
  };
}

const subjectsSchema = z.array(campaignSubjectSchema).superRefine((subjects, ctx) => {
  const seen = new Set<string>();
  for (const [index, subject] of subjects.entries()) {
    if (seen.has(subject.subjectId))
      ctx.addIssue({
        code: 'custom',
        path: [index, 'subjectId'],
        message: `"${subject.subjectId}" is named twice`,
      });
    seen.add(subject.subjectId);
  }
});

function checkSubjects(subjects: unknown): void {
  const parsed = subjectsSchema.safeParse(subjects);
  if (!parsed.success) throw InputError.fromZod(parsed.error, ['subjects']);
}

/** The auto window's cap when nothing sets one: well above what a quota needs (R × T / K). */
export const DEFAULT_WINDOW_CAP = 1000;
/** The fixed window's size when `fixedWindow` is asked without a size. */
export const DEFAULT_FIXED_WINDOW = 50;
/** How often the auto window samples the provider's signals. */
export const DEFAULT_WINDOW_SAMPLE_MS = 10_000;

/** The window settings of a campaign: auto (capped) unless `fixedWindow`; see workflows/campaign/window-controller.ts. */
function campaignWindow(
  settings: ReturnType<typeof campaignOptionsSchema.parse>,
  fallback: number | 'auto' | undefined,
): Pick<CampaignInput, 'maxInFlight' | 'window'> {
  const asked = settings.maxInFlight ?? fallback ?? 'auto';
  if (settings.fixedWindow) {
    const size = asked === 'auto' ? DEFAULT_FIXED_WINDOW : asked;
    return { maxInFlight: size, window: { mode: 'fixed', size } };
  }
  const cap = asked === 'auto' ? DEFAULT_WINDOW_CAP : asked;
  const { sampleEveryMs, ...tuning } = settings.autoWindow ?? {};
  return {
    maxInFlight: cap,
    window: { mode: 'auto', cap, sampleEveryMs: sampleEveryMs ?? DEFAULT_WINDOW_SAMPLE_MS, tuning },
  };
}

/**
 * The campaign a person names: the id they chose at the start (`spring`), under `tenant`, or the
 * whole workflow id that starts print (`default.spring`). A chosen id that itself begins with the
 * tenant's name and a dot is looked for first as a chosen id, then as a whole one.
 */
export async function campaignWorkflowIdOf(client: Client, tenant: string, named: string): Promise<string> {
  const chosen = tenantWorkflowId(tenant, named);
  if (!named.startsWith(tenantWorkflowId(tenant, ''))) return chosen;
  return (await runExists(client, chosen)) ? chosen : named;
}

export function getCampaign(
  client: Client,
  campaignId: string,
  options: { store: BlobStore },
): CampaignHandle {
  const raw = client.workflow.getHandle<AvatarCampaignWorkflow>(campaignId);
  const subjectsOf = memoize((ledger: Pick<LedgerView, 'manifest'>) =>
    readCampaignSubjects(ledger.manifest, options.store, 0, ledger.manifest.total),
  );
  const status = () => raw.describe().then((d) => d.status.name);

  const ledger = async (): Promise<LedgerView & { finishedAt?: string }> => {
    if ((await status()) === 'COMPLETED') {
      const outcome = await raw.result();
      return { ...outcome, state: outcome.state, finishedAt: outcome.finishedAt };
    }
    return raw.query(campaignLedgerQuery);
  };

  let manifestRef: Promise<ManifestRef> | undefined;
  /** `known`: the start memo's copy, when the caller has read it. */
  const visibleProgress = async (
    progress: CampaignProgress,
    known?: ManifestRef,
  ): Promise<CampaignProgress> => {
    if (!manifestRef) {
      manifestRef = known ? Promise.resolve(known) : ledger().then((l) => l.manifest);
      // Asked again next time: the campaign may not be readable yet.
      manifestRef.catch(() => (manifestRef = undefined));
    }
    const present = await campaignSubjectIds(await manifestRef, options.store);
    return withoutErased(progress, present);
  };

  const progress = async (described?: CampaignDescription): Promise<CampaignProgress> => {
    const { status, memo } = described ?? (await raw.describe());
    if (status.name !== 'RUNNING' && status.name !== 'COMPLETED')
      throw new Error(`campaign ${campaignId} is ${status.name.toLowerCase()}: it has no progress to show`);
    const recorded = recordedProgress(memo?.[CAMPAIGN_PROGRESS_MEMO]);
    // A run no worker has picked up yet has recorded nothing: a worker must answer the query.
    if (!recorded) return visibleProgress(await raw.query(campaignProgressQuery));
    return visibleProgress(aged(recorded, Date.now()), manifestRefOf(memo?.['manifest']));
  };

  const summarize = async (l: LedgerView & { finishedAt?: string }): Promise<CampaignSummary> => {
    const subjects = await subjectsOf(l);
    return buildSummary(campaignId, l, subjects);
  };

  const handle: CampaignHandle = {
    campaignId,
    progress,
    visibleProgress,
    result: async () => summarize(await raw.result()),
    summary: async () => summarize(await ledger()),
    pause: () => raw.executeUpdate(pauseCampaignUpdate).then(visibleProgress),
    resume: () => raw.executeUpdate(resumeCampaignUpdate).then(visibleProgress),
    cancel: () => raw.executeUpdate(cancelCampaignUpdate).then(visibleProgress),
    status,
    retry: async (subjectIds) => {
      const current = await ledger();
      const indexes = subjectIds ? indexesOf(subjectIds, await subjectsOf(current)) : undefined;
      const report =
        (await status()) === 'RUNNING'
          ? await raw
              .executeUpdate(retryCampaignUpdate, { args: [indexes ? { indexes } : {}] })
              .catch((err: unknown) => {
                // The workflow's validator refused: the reason names the subjects.
                if (err instanceof WorkflowUpdateFailedError && err.cause)
                  throw new InputError([{ path: 'subjectIds', message: err.cause.message }]);
                throw err;
              })
          : await restart(client, raw, indexes);
      return { ...report, progress: await visibleProgress(report.progress) };
    },
    resultRows: () => resultRows(client, campaignId, ledger, subjectsOf),
    raw,
  };
  return handle;
}

/**
 * A campaign that has ended starts again under its id, carrying its ledger, to run the named
 * subjects. The one start that reuses a closed run's id, on purpose, so not through startRunOnce.
 */
async function restart(
  client: Client,
  raw: WorkflowHandle<AvatarCampaignWorkflow>,
  indexes: number[] | undefined,
): Promise<RetryReport> {
  const description = await raw.describe();
  if (description.status.name !== 'COMPLETED') {
    throw new Error(
      `campaign ${raw.workflowId} is ${description.status.name}: only a running or completed campaign can be retried`,
    );
  }
  const outcome = await raw.result();
  const carried = carriedLedgerFrom(outcome);
  const retryable = [...carried.outcomes.statuses]
    .map((code, index) => (code === 'F' || code === 'C' ? index : -1))
    .filter((index) => index >= 0);
  const wanted = indexes ?? retryable;
  const refused = wanted.filter((index) => !retryable.includes(index));
  if (refused.length > 0) {
    throw new InputError(
      refused.map((index) => ({
        path: `subjects.${index}`,
        message: `is ${statusOfCode(carried.outcomes.statuses[index] ?? '.')}; only failed or cancelled subjects can be retried`,
      })),
    );
  }
  if (wanted.length === 0)
    throw new InputError([{ path: 'subjects', message: 'none failed or was cancelled' }]);
  const handle = await client.workflow.start<AvatarCampaignWorkflow>(WORKFLOW_TYPES.campaign, {
    workflowId: raw.workflowId,
    taskQueue: description.taskQueue,
    args: [{ ...outcome.settings, carried, retry: { indexes: wanted } }],
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    priority: campaignPriority(outcome.settings, raw.workflowId),
    typedSearchAttributes: campaignStartAttributes(outcome.settings.tenant, raw.workflowId),
    memo: {
      kind: 'campaign',
      total: outcome.total,
      tenant: outcome.settings.tenant,
      fairnessKey: outcome.settings.fairnessKey ?? raw.workflowId,
      manifest: outcome.manifest,
    },
    staticSummary: `Campaign of ${outcome.total} subjects: retry of ${wanted.length}`,
  });
  return { queued: wanted, progress: await handle.query(campaignProgressQuery) };
}

/**
 * The campaign's lists of subjects in flight and of recent failures keep only subjects its stored
 * manifest still holds: a campaign told of an erasure drops the person itself, but one that had
 * closed (or a snapshot taken before) still names them.
 */
function withoutErased(progress: CampaignProgress, present: ReadonlySet<string>): CampaignProgress {
  return {
    ...progress,
    inFlight: progress.inFlight.filter((id) => present.has(id)),
    recentFailures: progress.recentFailures.filter((f) => present.has(f.subjectId)),
  };
}

/**
 * The summary joins the ledger (by manifest index) with the stored manifest. Erasure rewrites that
 * manifest, not the ledger: a finished campaign's ledger is its result in workflow history, which
 * cannot change, and the manifest is the only place that names the subject. So an erased subject
 * (ERASED_SUBJECT in the manifest) is left out of the summary and the results, for running and
 * finished campaigns alike, while the other subjects keep their outcomes.
 */
function buildSummary(
  campaignId: string,
  ledger: LedgerView & { finishedAt?: string },
  subjects: ManifestEntry[],
): CampaignSummary {
  const { outcomes } = ledger;
  const rows: SubjectSummary[] = subjects.flatMap((subject, index) => {
    if (isErased(subject)) return [];
    const status = statusOfCode(outcomes.statuses[index] ?? '.');
    const modelId = outcomes.modelIds[index] ?? 0;
    const error = outcomes.errors[index];
    const attempts = outcomes.attempts[index];
    return {
      subjectId: subject.subjectId,
      status,
      workflowId: subjectWorkflowId(campaignId, subject),
      ...(modelId > 0 ? { modelId } : {}),
      ...(status === 'DONE' || status === 'PARTIAL'
        ? { avatarCount: outcomes.avatarCounts[index] ?? 0 }
        : {}),
      ...(error ? { error } : {}),
      ...(attempts ? { attempts } : {}),
    };
  });
  const count = (status: SubjectSummary['status']) => rows.filter((r) => r.status === status).length;
  return {
    workflowId: campaignId,
    status: ledger.state === 'cancelled' ? 'CANCELLED' : 'COMPLETED',
    total: rows.length,
    succeeded: count('DONE') + count('PARTIAL'),
    failed: count('FAILED'),
    partial: count('PARTIAL'),
    cancelled: count('CANCELLED'),
    startedAt: ledger.startedAt,
    finishedAt: ledger.finishedAt ?? '',
    subjects: rows,
  };
}

const EXPORT_CONCURRENCY = 16;

/** Reads the result of every finished subject's pipeline (kept by Temporal for the namespace's retention). */
async function* resultRows(
  client: Client,
  campaignId: string,
  ledger: () => Promise<LedgerView>,
  subjectsOf: (l: LedgerView) => Promise<ManifestEntry[]>,
): AsyncGenerator<CampaignResultRow> {
  const current = await ledger();
  const subjects = await subjectsOf(current);
  const finished = subjects.filter((subject, index): subject is CampaignSubject => {
    const code = current.outcomes.statuses[index];
    return !isErased(subject) && (code === 'D' || code === 'P');
  });
  for (let start = 0; start < finished.length; start += EXPORT_CONCURRENCY) {
    const batch = finished.slice(start, start + EXPORT_CONCURRENCY);
    const results = await Promise.all(
      batch.map(
        (subject) =>
          client.workflow
            .getHandle(subjectWorkflowId(campaignId, subject))
            .result() as Promise<PipelineResult>,
      ),
    );
    for (const [i, result] of results.entries()) {
      for (const generation of result.generations) {
        for (const avatar of generation.avatars) {
          yield {
            subjectId: batch[i]!.subjectId,
            modelId: result.modelId,
            styleId: generation.styleId,
            avatarId: avatar.avatarId,
            imageUrl: avatar.imageUrl,
            ...(avatar.archiveKey !== undefined ? { archiveKey: avatar.archiveKey } : {}),
            ...(avatar.check !== undefined ? { check: avatar.check } : {}),
          };
        }
      }
    }
  }
}

function indexesOf(subjectIds: string[], subjects: ManifestEntry[]): number[] {
  const byId = new Map(subjects.flatMap((s, index) => (isErased(s) ? [] : [[s.subjectId, index] as const])));
  const unknown = subjectIds.filter((id) => !byId.has(id));
  if (unknown.length > 0) {
    throw new InputError(
      unknown.map((id) => ({ path: 'subjectIds', message: `"${id}" is not a subject of this campaign` })),
    );
  }
  return subjectIds.map((id) => byId.get(id)!);
}

function memoize<A extends { manifest: { sha256: string } }, R>(fn: (a: A) => Promise<R>) {
  const cache = new Map<string, Promise<R>>();
  return (a: A): Promise<R> => {
    const key = a.manifest.sha256;
    let value = cache.get(key);
    if (!value) {
      value = fn(a);
      cache.set(key, value);
      value.catch(() => cache.delete(key));
    }
    return value;
  };
}

/** "campaign-20261122-0631-5f2c": sortable by start, unique enough to never collide. */
export function newCampaignId(now = new Date()): string {
  const stamp = now.toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  return `campaign-${stamp}-${randomBytes(3).toString('hex')}`;
}

export { subjectWorkflowId };
export type { FinalLedger };

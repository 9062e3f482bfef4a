import {
  allHandlersFinished,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  makeContinueAsNewFunc,
  ParentClosePolicy,
  setHandler,
  sleep,
  startChild,
  upsertMemo,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import type {
  CampaignInput,
  FinalLedger,
  CampaignProgress,
  CampaignSettings,
  CampaignState,
} from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import { isErased, subjectWorkflowId } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import type { GenerationWorkflowInput } from '@avatar-pipeline/client/contracts/model-runs';
import { PROGRESS_FEED_CAPACITY } from '@avatar-pipeline/client/contracts/progress-feed';
import { pipelineStartAttributes } from '@avatar-pipeline/client/contracts/search-attributes';
import {
  WORKFLOW_TYPES,
  type AvatarGenerationWorkflow,
  type AvatarPipelineWorkflow,
} from '@avatar-pipeline/client/contracts/workflow-definitions';
import {
  CAMPAIGN_PROGRESS_MEMO,
  campaignLedgerQuery,
  campaignProgressQuery,
  cancelCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  retryCampaignUpdate,
  subjectAwaitingReviewSignal,
  subjectEndedSignal,
  subjectsErasedSignal,
} from '@avatar-pipeline/client/contracts/campaign/definitions';
import type { PipelineWorkflowInput } from '@avatar-pipeline/client/contracts/pipeline-input';
import { CampaignLedger } from './ledger';
import { failureOutcome } from './report';
import { SubjectPages } from './subjects';
import { watchUnheardChildren, type RunningChild } from './unheard';
import { CampaignWindow } from './window';
import { CampaignWebhooks } from './webhooks';
import { ProgressLog } from '../../../workflows/progress-log';

/** Continue as new well before Temporal's warnings (10,240 events, 10 MB), whatever subjectsPerRun says. */
const HISTORY_EVENTS_SOFT_LIMIT = 8_000;
const HISTORY_BYTES_SOFT_LIMIT = 4 * 1024 * 1024;
/** Subject ids listed in the progress (the counts are always complete). */
const IN_FLIGHT_SHOWN = 50;
/**
 * Progress snapshots handed to the next run: enough for a watcher between two waits at the
 * boundary (the API waits 250 ms apart) to go on without a gap; one further behind is told
 * `skipped` and gets the whole current state.
 */
const FEED_CARRIED = 20;

/**
 * A batch campaign: one child avatar pipeline per subject of the manifest, at most the window's
 * size at once (a sliding window: each end starts the next). The window is sized from the
 * provider's signals (auto, capped at maxInFlight) or fixed (window.ts).
 *
 * Children outlive the run that started them: each pipeline reports its end by a signal to the
 * campaign's id, so to whichever run is current. A run starts at most `subjectsPerRun` subjects
 * (or stops early when history grows long or a new worker version is current), then continues
 * as new at once with the compact ledger and the list of subjects still running; the window
 * never drains at a run boundary. A child that closes without reporting (terminated, timed out)
 * is found by unheard.ts. A subject's failure is recorded with its message and touches no
 * other subject. Pause, resume, cancel and retry are updates. Every change of progress is kept in
 * the run's memo (read by describe, without a worker) and numbered in the progress feed
 * (workflows/progress-log.ts) that the API's event stream queries, counted on across runs.
 */
export async function avatarCampaign(input: CampaignInput): Promise<FinalLedger> {
  const { workflowId: campaignId } = workflowInfo();
  const ledger = new CampaignLedger(input.manifest.total, Date.now(), input.carried);
  const pages = new SubjectPages(input.manifest, input.pageSize);
  const window = new CampaignWindow(input.window, input.carried?.window, {
    ...(input.fairnessKey !== undefined ? { key: input.fairnessKey } : {}),
    weight: input.fairnessWeight,
  });
  /** Subjects running, by manifest index: their child workflow id and subject id. */
  const running = new Map<number, RunningChild>();
  const indexOfChild = new Map<string, number>();
  /**
   * Of those, the subjects held at their review gate: waiting for a person, not the provider, so
   * outside the window (which starts others in their place) until their runs end.
   */
  const reviewing = new Set<number>(input.carried?.reviewing ?? []);
  const inWindow = () => running.size - reviewing.size;
  // A child whose start is still pending when the run closes would never start: wait for them.
  const startsPending = new Set<number>();
  /** Erased subjects (by manifest index) this run may still meet: read before erasure, or running. */
  const erased = new Set<number>(input.carried?.erased ?? []);
  const track = (index: number, workflowId: string, subjectId: string) => {
    running.set(index, { workflowId, subjectId, heardAtMs: Date.now() });
    indexOfChild.set(workflowId, index);
    changed();
  };
  // Every change of progress is numbered for watchers; changes made together make one snapshot.
  const feed = new ProgressLog<CampaignProgress>(PROGRESS_FEED_CAPACITY, input.carried?.feed);
  let unrecorded = true;
  const changed = () => {
    unrecorded = true;
  };
  const webhooks = new CampaignWebhooks(input);
  const recordProgress = () => {
    if (!unrecorded) return;
    unrecorded = false;
    const snapshot = progress();
    feed.record(snapshot);
    // Kept where describe reads it: `campaigns status` is answered by the server alone, also
    // while this run's workflow task waits, replays or has no worker (a query would wait with it).
    upsertMemo({ [CAMPAIGN_PROGRESS_MEMO]: snapshot });
    webhooks.changed();
  };
  for (const [index, workflowId, subjectId] of input.carried?.running ?? [])
    track(index, workflowId, subjectId);
  const ended = (index: number, outcome: Parameters<CampaignLedger['finished']>[2]) => {
    const entry = running.get(index);
    if (!entry) return;
    running.delete(index);
    // A subject that left the window for its review counted as a completion for the window then.
    const leftTheWindow = reviewing.delete(index);
    indexOfChild.delete(entry.workflowId);
    // An erased subject counts as cancelled, however their pipeline ended, and is named nowhere.
    if (erased.has(index)) ledger.finished(index, '', { status: 'CANCELLED' }, Date.now());
    else ledger.finished(index, entry.subjectId, outcome, Date.now());
    if (!leftTheWindow) window.ended();
    changed();
  };
  const erasedRunning = () => [...erased].filter((index) => running.has(index));
  let startedThisRun = 0;
  let closing = false;
  // A restarted campaign (a retry after it had ended) queues its subjects before anything else.
  if (input.retry) ledger.queueRetry(ledger.retryable(input.retry.indexes).accepted);

  const state = (): CampaignState => {
    if (ledger.cancelled) return running.size > 0 ? 'cancelling' : 'cancelled';
    if (!ledger.hasWork() && running.size === 0) return 'completed';
    return ledger.paused ? 'paused' : 'running';
  };
  const progress = (): CampaignProgress => {
    const now = Date.now();
    const eta = ledger.etaMs(now);
    const awaitingReview = [...reviewing].filter((index) => !erased.has(index));
    return {
      campaignId,
      state: state(),
      total: ledger.total,
      counts: ledger.counts(),
      maxInFlight: input.maxInFlight,
      window: window.view(),
      inFlight: [...running.entries()]
        .filter(([index]) => !erased.has(index))
        .slice(0, IN_FLIGHT_SHOWN)
        .map(([, r]) => r.subjectId),
      ...(input.pipeline.review
        ? {
            awaitingReview: {
              count: awaitingReview.length,
              subjects: awaitingReview
                .slice(0, IN_FLIGHT_SHOWN)
                .map((index) => running.get(index)!.subjectId),
            },
          }
        : {}),
      run: ledger.run,
      startedAt: new Date(ledger.startedAtMs).toISOString(),
      elapsedMs: now - ledger.startedAtMs,
      throughputPerMinute: Math.round(ledger.throughputPerMinute(now) * 10) / 10,
      ...(eta !== undefined ? { etaMs: eta } : {}),
      recentFailures: ledger.failures(),
    };
  };
  // The child reports CANCELLED when it has stopped; one that already ended reports that instead.
  const cancelChild = (workflowId: string) =>
    void getExternalWorkflowHandle(workflowId)
      .cancel()
      .catch(() => undefined);
  const cancelAll = () => {
    ledger.cancelRemaining();
    for (const { workflowId } of running.values()) cancelChild(workflowId);
  };

  setHandler(subjectEndedSignal, ({ workflowId, outcome }) => {
    const index = indexOfChild.get(workflowId);
    if (index !== undefined) ended(index, outcome);
  });
  setHandler(subjectAwaitingReviewSignal, ({ workflowId }) => {
    const index = indexOfChild.get(workflowId);
    if (index === undefined || reviewing.has(index)) return;
    reviewing.add(index);
    window.ended();
    changed();
  });
  setHandler(subjectsErasedSignal, ({ indexes }) => {
    const names = new Set<string>();
    const now = new Set(
      indexes.filter((index) => Number.isInteger(index) && index >= 0 && index < ledger.total),
    );
    for (const index of now) {
      erased.add(index);
      const child = running.get(index);
      const name = child?.subjectId ?? pages.peekId(index);
      if (name !== undefined) names.add(name);
      pages.erase(index);
      if (child) {
        // Still tracked until their pipeline ends (it reports to the campaign), under no name.
        child.subjectId = '';
        // A start still pending is cancelled once it has started (launch).
        if (!startsPending.has(index)) cancelChild(child.workflowId);
      }
    }
    for (const name of ledger.forgetFailures(now)) names.add(name);
    // Snapshots kept for watchers drop the person too (those carried from an earlier run included).
    feed.rewrite((snapshot) => ({
      ...snapshot,
      inFlight: snapshot.inFlight.filter((id) => !names.has(id)),
      recentFailures: snapshot.recentFailures.filter((f) => !names.has(f.subjectId)),
    }));
    changed();
  });
  setHandler(campaignProgressQuery, progress);
  setHandler(campaignLedgerQuery, () => ({
    manifest: input.manifest,
    state: state(),
    counts: ledger.counts(),
    outcomes: ledger.outcomes(),
    startedAt: new Date(ledger.startedAtMs).toISOString(),
  }));
  setHandler(pauseCampaignUpdate, () => {
    ledger.paused = true;
    changed();
    return progress();
  });
  setHandler(resumeCampaignUpdate, () => {
    ledger.paused = false;
    changed();
    return progress();
  });
  setHandler(cancelCampaignUpdate, () => {
    cancelAll();
    changed();
    return progress();
  });
  setHandler(
    retryCampaignUpdate,
    (request) => {
      const { accepted } = ledger.retryable(request.indexes);
      ledger.queueRetry(accepted);
      changed();
      return { queued: accepted, progress: progress() };
    },
    {
      validator: (request) => {
        if (closing)
          throw new Error('the campaign is ending; retry it again once it has ended (it then restarts)');
        const { refused } = ledger.retryable(request.indexes);
        if (refused.length > 0) throw new Error(refused.join('; '));
      },
    },
  );

  // Runs are pinned to the worker version they started on; the next run starts on the version
  // current then, so a campaign moves to a new version at its continue-as-new boundary (its
  // running children stay on theirs).
  const continueOnCurrentVersion = makeContinueAsNewFunc<typeof avatarCampaign>({
    initialVersioningBehavior: 'AUTO_UPGRADE',
  });
  const historyIsLong = () => {
    const info = workflowInfo();
    return (
      info.continueAsNewSuggested ||
      info.historyLength > HISTORY_EVENTS_SOFT_LIMIT ||
      info.historySize > HISTORY_BYTES_SOFT_LIMIT
    );
  };
  const starting = () => !ledger.cancelled && !ledger.paused && ledger.hasWork();
  const wantsNewRun = () =>
    !ledger.cancelled &&
    ((ledger.hasWork() && startedThisRun >= input.subjectsPerRun) ||
      ((ledger.hasWork() || running.size > 0) &&
        (historyIsLong() || workflowInfo().targetWorkerDeploymentVersionChanged)));
  const canStart = () => starting() && inWindow() < window.size && !wantsNewRun();
  const finished = () => running.size === 0 && (ledger.cancelled || !ledger.hasWork());

  // The auto window samples the provider's signals while it is what limits the campaign: work is
  // waiting and the window is (nearly) full. Otherwise nothing is sampled, and history stays quiet.
  let sampling = true;
  const windowLimits = () => starting() && inWindow() >= 0.9 * window.size;
  const sampleWindow = async () => {
    await window.sample(
      { inFlight: inWindow(), waiting: ledger.waiting() },
      {
        providerTaskQueue: input.pipeline.providerTaskQueue,
        workflowTaskQueue: input.pipeline.taskQueue ?? workflowInfo().taskQueue,
      },
    );
    changed();
  };
  if (window.auto) {
    void (async () => {
      while (sampling) {
        await condition(() => !sampling || windowLimits());
        if (!sampling) break;
        await sleep(window.sampleEveryMs);
        if (sampling && windowLimits()) await sampleWindow();
      }
    })();
  }
  feed.install();
  // Not cancellable: a campaign cancelled from outside goes on recording while it winds down.
  void CancellationScope.nonCancellable(async () => {
    for (;;) {
      await condition(() => unrecorded);
      recordProgress();
    }
  });

  void CancellationScope.nonCancellable(() => webhooks.announceProgress(progress));

  const launch = async (index: number, subject: CampaignSubject) => {
    const workflowId = subjectWorkflowId(campaignId, subject);
    track(index, workflowId, subject.subjectId);
    startedThisRun++;
    startsPending.add(index);
    try {
      await startSubject(campaignId, workflowId, subject, input);
      // A cancel or an erasure that came while the start was pending could not reach the child yet.
      if (erased.has(index) || ledger.cancelled) cancelChild(workflowId);
    } catch (err) {
      ended(index, failureOutcome(err));
    } finally {
      startsPending.delete(index);
    }
  };

  let watching = true;
  // Not cancellable either: a campaign cancelled from outside waits for its children to end, and
  // one terminated meanwhile must still be found.
  void CancellationScope.nonCancellable(() =>
    watchUnheardChildren({
      campaignId,
      manifest: input.manifest,
      everyMs: input.childCheckMs,
      running,
      starting: (index) => startsPending.has(index),
      stopped: () => !watching,
      ended,
    }),
  );

  try {
    // A tenant's campaign learns how many of the tenant's campaigns share its window before it
    // starts anyone, so that a tenant starting several at once does not start each at the size of
    // a lone one (campaigns without a tenant key sample only once their window is full).
    if (window.auto && input.fairnessKey !== undefined && !input.carried?.window) await sampleWindow();
    for (;;) {
      await condition(() => canStart() || finished() || wantsNewRun());
      if (finished()) break;
      if (wantsNewRun()) {
        // Hand the ledger, the window and the running subjects to a fresh run; they go on running.
        sampling = false;
        watching = false;
        await condition(() => startsPending.size === 0 && allHandlersFinished());
        recordProgress();
        webhooks.stop();
        return await continueOnCurrentVersion({
          ...settingsOf(input),
          carried: {
            ...ledger.carry(),
            running: [...running.entries()].map(([index, r]) => [index, r.workflowId, r.subjectId]),
            ...(reviewing.size > 0 ? { reviewing: [...reviewing] } : {}),
            ...(erasedRunning().length > 0 ? { erased: erasedRunning() } : {}),
            ...(window.carry() ? { window: window.carry()! } : {}),
            feed: feed.carry(FEED_CARRIED),
          },
        });
      }
      const index = ledger.takeNext();
      const subject = await pages.get(index);
      if (ledger.cancelled) {
        ledger.putBack(index);
        ledger.cancelRemaining();
        continue;
      }
      if (isErased(subject) || erased.has(index)) {
        // The person was erased before their turn (or while their page was read): they are never
        // started, and count as cancelled.
        ledger.finished(index, '', { status: 'CANCELLED' }, Date.now());
        changed();
        continue;
      }
      void launch(index, subject);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancelled from outside (e.g. the Temporal UI): same as the cancel update, then report.
    await CancellationScope.nonCancellable(async () => {
      cancelAll();
      await condition(() => running.size === 0);
    });
  }

  sampling = false;
  watching = false;
  closing = true;
  recordProgress();
  await condition(allHandlersFinished);
  const outcomes = ledger.carry().outcomes;
  upsertMemo({ state: ledger.cancelled ? 'cancelled' : 'completed' });
  await webhooks.completed({
    campaignId,
    state: ledger.cancelled ? 'cancelled' : 'completed',
    total: ledger.total,
    counts: ledger.counts(),
  });
  return {
    campaignId,
    state: ledger.cancelled ? 'cancelled' : 'completed',
    manifest: input.manifest,
    settings: settingsOf(input),
    total: ledger.total,
    counts: ledger.counts(),
    outcomes,
    startedAt: new Date(ledger.startedAtMs).toISOString(),
    finishedAt: new Date(Date.now()).toISOString(),
    runs: ledger.run,
  };
}

function settingsOf(input: CampaignInput): CampaignSettings {
  const { carried: _carried, retry: _retry, ...settings } = input;
  return settings;
}

/**
 * Starts one subject's pipeline as a child that outlives this run (it reports its end by signal,
 * see report.ts); resolves once it has started. A subject with a modelId starts a
 * generation run under that model instead (its model was checked by the starter); it reports the
 * same way and answers the pipeline's result shape.
 */
async function startSubject(
  campaignId: string,
  workflowId: string,
  subject: CampaignSubject,
  input: CampaignInput,
): Promise<void> {
  const common = {
    // With payload encryption the subject's keyed hash stands in for its id (ids are plaintext).
    workflowId,
    ...(input.pipeline.taskQueue ? { taskQueue: input.pipeline.taskQueue } : {}),
    // A subject that succeeded is never run twice; a failed or cancelled one may be retried.
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    // Children outlive the run that started them; cancelling the campaign cancels them explicitly.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    // Campaign work yields to interactive pipelines (default priority 3) on every task queue, and
    // tenants share each queue fairly: one fairness key per tenant (per campaign in campaigns
    // started before tenants), with the operator's weight. Activities inherit it.
    priority: {
      priorityKey: input.priorityKey,
      fairnessKey: input.fairnessKey ?? campaignId,
      fairnessWeight: input.fairnessWeight,
    },
    memo: { subjectId: subject.subjectId, campaignId, tenant: input.tenant },
    // As every starter does: the UI filters a campaign's pipelines by CampaignId (SubjectId keyed when encrypted).
    typedSearchAttributes: pipelineStartAttributes({
      tenant: input.tenant,
      ...(subject.searchKey ? { subjectKey: subject.searchKey } : {}),
      campaignId,
    }),
  };
  const shared = {
    tenant: input.tenant,
    styles: subject.styles,
    gender: subject.gender,
    subjectId: subject.subjectId,
    campaignId,
    generationDeadlineMs: input.pipeline.generationDeadlineMs,
    polling: input.pipeline.polling,
    providerTaskQueue: input.pipeline.providerTaskQueue,
    ...(input.pipeline.archiveAvatars ? { archiveAvatars: true } : {}),
    ...(input.pipeline.review ? { review: input.pipeline.review } : {}),
  };
  if (subject.modelId !== undefined) {
    // A subject with a model checks its avatars against the face its subject's training recorded.
    const avatarChecks = input.pipeline.checks?.avatars;
    const args: GenerationWorkflowInput = {
      ...shared,
      modelId: subject.modelId,
      ...(avatarChecks && input.pipeline.checks
        ? { checks: { taskQueue: input.pipeline.checks.taskQueue, avatars: avatarChecks } }
        : {}),
    };
    await startChild<AvatarGenerationWorkflow>(
      input.pipeline.generationWorkflowType ?? WORKFLOW_TYPES.generation,
      {
        ...common,
        args: [args],
        staticSummary: `${subject.subjectId} (campaign ${campaignId}): styles ${subject.styles.join(', ')} under model ${subject.modelId}`,
      },
    );
    return;
  }
  const args: PipelineWorkflowInput = {
    ...shared,
    images: subject.images,
    mainImageIndex: subject.mainImageIndex,
    trainingDeadlineMs: input.pipeline.trainingDeadlineMs,
    ...(input.pipeline.checks ? { checks: input.pipeline.checks } : {}),
  };
  await startChild<AvatarPipelineWorkflow>(input.pipeline.workflowType ?? WORKFLOW_TYPES.pipeline, {
    ...common,
    args: [args],
    staticSummary: `${subject.subjectId} (campaign ${campaignId}): ${subject.images.length} selfies, styles ${subject.styles.join(', ')}`,
  });
}

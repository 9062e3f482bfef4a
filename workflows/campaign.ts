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
import type { CampaignSubject } from '../src/contracts/campaign';
import type {
  CampaignInput,
  CampaignOutcome,
  CampaignProgress,
  CampaignSettings,
  CampaignState,
} from '../src/contracts/campaign-state';
import { isErased, subjectWorkflowId } from '../src/contracts/campaign-state';
import type { GenerationWorkflowInput } from '../src/contracts/model-runs';
import { PROGRESS_FEED_CAPACITY } from '../src/contracts/progress-feed';
import { pipelineStartAttributes } from '../src/contracts/search-attributes';
import {
  campaignLedgerQuery,
  campaignProgressQuery,
  cancelCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  retryCampaignUpdate,
  subjectEndedSignal,
  subjectsErasedSignal,
  WORKFLOW_TYPES,
  type AvatarGenerationWorkflow,
  type AvatarPipelineWorkflow,
} from '../src/contracts/workflow-definitions';
import type { PipelineWorkflowInput } from '../src/contracts/pipeline-input';
import { CampaignBook } from './campaign-book';
import { failureOutcome } from './campaign-report';
import { SubjectPages } from './campaign-subjects';
import { watchUnheardChildren, type RunningChild } from './campaign-unheard';
import { CampaignWindow } from './campaign-window';
import { CampaignWebhooks } from './campaign-webhooks';
import { ProgressLog } from './progress-log';

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
 * provider's signals (auto, capped at maxInFlight) or fixed (campaign-window.ts).
 *
 * Children outlive the run that started them: each pipeline reports its end by a signal to the
 * campaign's id, so to whichever run is current. A run starts at most `subjectsPerRun` subjects
 * (or stops early when history grows long or a new worker version is current), then continues
 * as new at once with the compact ledger and the list of subjects still running; the window
 * never drains at a run boundary. A child that closes without reporting (terminated, timed out)
 * is found by campaign-unheard.ts. A subject's failure is recorded with its message and touches no
 * other subject. Pause, resume, cancel and retry are updates; progress is a query, and every change
 * of it is numbered in the progress feed (workflows/progress-log.ts) that the API's event stream
 * queries, counted on across runs.
 */
export async function avatarCampaign(input: CampaignInput): Promise<CampaignOutcome> {
  const { workflowId: campaignId } = workflowInfo();
  const book = new CampaignBook(input.manifest.total, Date.now(), input.carried);
  const pages = new SubjectPages(input.manifest, input.pageSize);
  const window = new CampaignWindow(input.window, input.carried?.window);
  /** Subjects running, by manifest index: their child workflow id and subject id. */
  const running = new Map<number, RunningChild>();
  const indexOfChild = new Map<string, number>();
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
    feed.record(progress());
    webhooks.changed();
  };
  for (const [index, workflowId, subjectId] of input.carried?.running ?? [])
    track(index, workflowId, subjectId);
  const ended = (index: number, outcome: Parameters<CampaignBook['finished']>[2]) => {
    const entry = running.get(index);
    if (!entry) return;
    running.delete(index);
    indexOfChild.delete(entry.workflowId);
    // An erased subject counts as cancelled, however their pipeline ended, and is named nowhere.
    if (erased.has(index)) book.finished(index, '', { status: 'CANCELLED' }, Date.now());
    else book.finished(index, entry.subjectId, outcome, Date.now());
    window.ended();
    changed();
  };
  const erasedRunning = () => [...erased].filter((index) => running.has(index));
  let startedThisRun = 0;
  let closing = false;
  // A restarted campaign (a retry after it had ended) queues its subjects before anything else.
  if (input.retry) book.queueRetry(book.retryable(input.retry.indexes).accepted);

  const state = (): CampaignState => {
    if (book.cancelled) return running.size > 0 ? 'cancelling' : 'cancelled';
    if (!book.hasWork() && running.size === 0) return 'completed';
    return book.paused ? 'paused' : 'running';
  };
  const progress = (): CampaignProgress => {
    const now = Date.now();
    const eta = book.etaMs(now);
    return {
      campaignId,
      state: state(),
      total: book.total,
      counts: book.counts(),
      maxInFlight: input.maxInFlight,
      window: window.view(),
      inFlight: [...running.entries()]
        .filter(([index]) => !erased.has(index))
        .slice(0, IN_FLIGHT_SHOWN)
        .map(([, r]) => r.subjectId),
      run: book.run,
      startedAt: new Date(book.startedAtMs).toISOString(),
      elapsedMs: now - book.startedAtMs,
      throughputPerMinute: Math.round(book.throughputPerMinute(now) * 10) / 10,
      ...(eta !== undefined ? { etaMs: eta } : {}),
      recentFailures: book.failures(),
    };
  };
  // The child reports CANCELLED when it has stopped; one that already ended reports that instead.
  const cancelChild = (workflowId: string) =>
    void getExternalWorkflowHandle(workflowId)
      .cancel()
      .catch(() => undefined);
  const cancelAll = () => {
    book.cancelRemaining();
    for (const { workflowId } of running.values()) cancelChild(workflowId);
  };

  setHandler(subjectEndedSignal, ({ workflowId, outcome }) => {
    const index = indexOfChild.get(workflowId);
    if (index !== undefined) ended(index, outcome);
  });
  setHandler(subjectsErasedSignal, ({ indexes }) => {
    const names = new Set<string>();
    const now = new Set(
      indexes.filter((index) => Number.isInteger(index) && index >= 0 && index < book.total),
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
    for (const name of book.forgetFailures(now)) names.add(name);
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
    counts: book.counts(),
    outcomes: book.outcomes(),
    startedAt: new Date(book.startedAtMs).toISOString(),
  }));
  setHandler(pauseCampaignUpdate, () => {
    book.paused = true;
    changed();
    return progress();
  });
  setHandler(resumeCampaignUpdate, () => {
    book.paused = false;
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
      const { accepted } = book.retryable(request.indexes);
      book.queueRetry(accepted);
      changed();
      return { queued: accepted, progress: progress() };
    },
    {
      validator: (request) => {
        if (closing)
          throw new Error('the campaign is ending; retry it again once it has ended (it then restarts)');
        const { refused } = book.retryable(request.indexes);
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
  const starting = () => !book.cancelled && !book.paused && book.hasWork();
  const wantsNewRun = () =>
    !book.cancelled &&
    ((book.hasWork() && startedThisRun >= input.subjectsPerRun) ||
      ((book.hasWork() || running.size > 0) &&
        (historyIsLong() || workflowInfo().targetWorkerDeploymentVersionChanged)));
  const canStart = () => starting() && running.size < window.size && !wantsNewRun();
  const finished = () => running.size === 0 && (book.cancelled || !book.hasWork());

  // The auto window samples the provider's signals while it is what limits the campaign: work is
  // waiting and the window is (nearly) full. Otherwise nothing is sampled, and history stays quiet.
  let sampling = true;
  const windowLimits = () => starting() && running.size >= 0.9 * window.size;
  if (window.auto) {
    void (async () => {
      while (sampling) {
        await condition(() => !sampling || windowLimits());
        if (!sampling) break;
        await sleep(window.sampleEveryMs);
        if (sampling && windowLimits()) {
          await window.sample(
            { inFlight: running.size, waiting: book.waiting() },
            {
              providerTaskQueue: input.pipeline.providerTaskQueue,
              workflowTaskQueue: input.pipeline.taskQueue ?? workflowInfo().taskQueue,
            },
          );
          changed();
        }
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
      if (erased.has(index)) cancelChild(workflowId);
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
            ...book.carry(),
            running: [...running.entries()].map(([index, r]) => [index, r.workflowId, r.subjectId]),
            ...(erasedRunning().length > 0 ? { erased: erasedRunning() } : {}),
            ...(window.carry() ? { window: window.carry()! } : {}),
            feed: feed.carry(FEED_CARRIED),
          },
        });
      }
      const index = book.takeNext();
      const subject = await pages.get(index);
      if (book.cancelled) {
        book.putBack(index);
        book.cancelRemaining();
        continue;
      }
      if (isErased(subject) || erased.has(index)) {
        // The person was erased before their turn (or while their page was read): they are never
        // started, and count as cancelled.
        book.finished(index, '', { status: 'CANCELLED' }, Date.now());
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
  const outcomes = book.carry().outcomes;
  upsertMemo({ state: book.cancelled ? 'cancelled' : 'completed' });
  await webhooks.completed({
    campaignId,
    state: book.cancelled ? 'cancelled' : 'completed',
    total: book.total,
    counts: book.counts(),
  });
  return {
    campaignId,
    state: book.cancelled ? 'cancelled' : 'completed',
    manifest: input.manifest,
    settings: settingsOf(input),
    total: book.total,
    counts: book.counts(),
    outcomes,
    startedAt: new Date(book.startedAtMs).toISOString(),
    finishedAt: new Date(Date.now()).toISOString(),
    runs: book.run,
  };
}

function settingsOf(input: CampaignInput): CampaignSettings {
  const { carried: _carried, retry: _retry, ...settings } = input;
  return settings;
}

/**
 * Starts one subject's pipeline as a child that outlives this run (it reports its end by signal,
 * see campaign-report.ts); resolves once it has started. A subject with a modelId starts a
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
    // campaigns share each queue fairly: one fairness key per campaign, with its weight.
    priority: {
      priorityKey: input.priorityKey,
      fairnessKey: campaignId,
      fairnessWeight: input.fairnessWeight,
    },
    memo: { subjectId: subject.subjectId, campaignId },
    // As every starter does: the UI filters a campaign's pipelines by CampaignId (SubjectId keyed when encrypted).
    typedSearchAttributes: pipelineStartAttributes({
      ...(subject.searchKey ? { subjectKey: subject.searchKey } : {}),
      campaignId,
    }),
  };
  const shared = {
    styles: subject.styles,
    gender: subject.gender,
    subjectId: subject.subjectId,
    campaignId,
    generationDeadlineMs: input.pipeline.generationDeadlineMs,
    polling: input.pipeline.polling,
    providerTaskQueue: input.pipeline.providerTaskQueue,
    ...(input.pipeline.archiveAvatars ? { archiveAvatars: true } : {}),
  };
  if (subject.modelId !== undefined) {
    const args: GenerationWorkflowInput = { ...shared, modelId: subject.modelId };
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
  };
  await startChild<AvatarPipelineWorkflow>(input.pipeline.workflowType ?? WORKFLOW_TYPES.pipeline, {
    ...common,
    args: [args],
    staticSummary: `${subject.subjectId} (campaign ${campaignId}): ${subject.images.length} selfies, styles ${subject.styles.join(', ')}`,
  });
}

import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  condition,
  executeChild,
  isCancellation,
  makeContinueAsNewFunc,
  ParentClosePolicy,
  setHandler,
  upsertMemo,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { CampaignSubject } from '../src/contracts/campaign';
import type {
  CampaignInput,
  CampaignOutcome,
  CampaignProgress,
  CampaignSettings,
  CampaignState,
} from '../src/contracts/campaign-state';
import { subjectWorkflowId } from '../src/contracts/campaign-state';
import { pipelineStartAttributes } from '../src/contracts/search-attributes';
import {
  campaignLedgerQuery,
  campaignProgressQuery,
  cancelCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  retryCampaignUpdate,
  WORKFLOW_TYPES,
  type AvatarPipelineWorkflow,
} from '../src/contracts/workflow-definitions';
import type { PipelineWorkflowInput } from '../src/contracts/pipeline-input';
import { CampaignBook, type SubjectOutcome } from './campaign-book';
import { SubjectPages } from './campaign-subjects';

/** Continue as new well before Temporal's warnings (10,240 events, 10 MB), whatever subjectsPerRun says. */
const HISTORY_EVENTS_SOFT_LIMIT = 8_000;
const HISTORY_BYTES_SOFT_LIMIT = 4 * 1024 * 1024;
/** Subject ids listed in the progress (the counts are always complete). */
const IN_FLIGHT_SHOWN = 50;

/**
 * A batch campaign: one child avatar pipeline per subject of the manifest, at most `maxInFlight`
 * at once (a sliding window: each end starts the next). Each run starts at most `subjectsPerRun`
 * subjects, lets its children finish, and continues as new with the compact ledger, so history
 * stays bounded at any campaign size. A subject's failure is recorded with its message and
 * touches no other subject. Pause, resume, cancel and retry are updates; progress is a query.
 */
export async function avatarCampaign(input: CampaignInput): Promise<CampaignOutcome> {
  const { workflowId: campaignId } = workflowInfo();
  const book = new CampaignBook(input.manifest.total, Date.now(), input.carried);
  const pages = new SubjectPages(input.manifest, input.pageSize);
  const running = new Map<number, { subjectId: string; scope: CancellationScope }>();
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
      inFlight: [...running.values()].slice(0, IN_FLIGHT_SHOWN).map((r) => r.subjectId),
      run: book.run,
      startedAt: new Date(book.startedAtMs).toISOString(),
      elapsedMs: now - book.startedAtMs,
      throughputPerMinute: Math.round(book.throughputPerMinute(now) * 10) / 10,
      ...(eta !== undefined ? { etaMs: eta } : {}),
      recentFailures: book.failures(),
    };
  };
  const cancelAll = () => {
    book.cancelRemaining();
    for (const { scope } of running.values()) scope.cancel();
  };

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
    return progress();
  });
  setHandler(resumeCampaignUpdate, () => {
    book.paused = false;
    return progress();
  });
  setHandler(cancelCampaignUpdate, () => {
    cancelAll();
    return progress();
  });
  setHandler(
    retryCampaignUpdate,
    (request) => {
      const { accepted } = book.retryable(request.indexes);
      book.queueRetry(accepted);
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
  // current then, so a campaign moves to a new version at its continue-as-new boundary.
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
  // A new current version also ends the run early: its running children finish, then it moves.
  const wantsNewRun = () =>
    startedThisRun >= input.subjectsPerRun ||
    historyIsLong() ||
    workflowInfo().targetWorkerDeploymentVersionChanged;
  const canStart = () =>
    !book.cancelled && !book.paused && book.hasWork() && running.size < input.maxInFlight && !wantsNewRun();
  const idle = () => running.size === 0 && (book.cancelled || !book.hasWork() || wantsNewRun());

  const launch = (index: number, subject: CampaignSubject) => {
    const scope = new CancellationScope();
    running.set(index, { subjectId: subject.subjectId, scope });
    startedThisRun++;
    void scope
      .run(() => runSubject(campaignId, subject, input))
      .then(
        (outcome) => book.finished(index, subject.subjectId, outcome, Date.now()),
        (err: unknown) => book.finished(index, subject.subjectId, failureOutcome(err), Date.now()),
      )
      .finally(() => running.delete(index));
  };

  try {
    for (;;) {
      await condition(() => canStart() || idle());
      if (idle()) {
        if (book.cancelled || !book.hasWork()) break;
        // Every child of this run has finished: hand the ledger to a fresh run.
        await condition(allHandlersFinished);
        return await continueOnCurrentVersion({ ...settingsOf(input), carried: book.carry() });
      }
      const index = book.takeNext();
      const subject = await pages.get(index);
      if (book.cancelled) {
        book.putBack(index);
        book.cancelRemaining();
        continue;
      }
      launch(index, subject);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancelled from outside (e.g. the Temporal UI): same as the cancel update, then report.
    await CancellationScope.nonCancellable(async () => {
      cancelAll();
      await condition(() => running.size === 0);
    });
  }

  closing = true;
  await condition(allHandlersFinished);
  const finished = book.carry();
  upsertMemo({ state: book.cancelled ? 'cancelled' : 'completed' });
  return {
    campaignId,
    state: book.cancelled ? 'cancelled' : 'completed',
    manifest: input.manifest,
    settings: settingsOf(input),
    total: book.total,
    counts: book.counts(),
    outcomes: finished.outcomes,
    startedAt: new Date(book.startedAtMs).toISOString(),
    finishedAt: new Date(Date.now()).toISOString(),
    runs: book.run,
  };
}

function settingsOf(input: CampaignInput): CampaignSettings {
  const { carried: _carried, retry: _retry, ...settings } = input;
  return settings;
}

/** One subject's pipeline as a child workflow; its end is this subject's outcome, never the campaign's failure. */
async function runSubject(
  campaignId: string,
  subject: CampaignSubject,
  input: CampaignInput,
): Promise<SubjectOutcome> {
  const args: PipelineWorkflowInput = {
    images: subject.images,
    styles: subject.styles,
    gender: subject.gender,
    mainImageIndex: subject.mainImageIndex,
    subjectId: subject.subjectId,
    campaignId,
    trainingDeadlineMs: input.pipeline.trainingDeadlineMs,
    generationDeadlineMs: input.pipeline.generationDeadlineMs,
    polling: input.pipeline.polling,
    providerTaskQueue: input.pipeline.providerTaskQueue,
    ...(input.pipeline.archiveAvatars ? { archiveAvatars: true } : {}),
  };
  const result = await executeChild<AvatarPipelineWorkflow>(
    input.pipeline.workflowType ?? WORKFLOW_TYPES.pipeline,
    {
      // With payload encryption the subject's keyed hash stands in for its id (ids are plaintext).
      workflowId: subjectWorkflowId(campaignId, subject),
      args: [args],
      ...(input.pipeline.taskQueue ? { taskQueue: input.pipeline.taskQueue } : {}),
      // A subject that succeeded is never run twice; a failed or cancelled one may be retried.
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      // Campaign work yields to interactive pipelines (default priority 3) on every task queue.
      priority: { priorityKey: input.priorityKey },
      memo: { subjectId: subject.subjectId, campaignId },
      // As every starter does: the UI filters a campaign's pipelines by CampaignId (SubjectId keyed when encrypted).
      typedSearchAttributes: pipelineStartAttributes({
        ...(subject.searchKey ? { subjectKey: subject.searchKey } : {}),
        campaignId,
      }),
      staticSummary: `${subject.subjectId} (campaign ${campaignId}): ${subject.images.length} selfies, styles ${subject.styles.join(', ')}`,
    },
  );
  const avatarCount = result.generations.reduce((n, g) => n + g.avatars.length, 0);
  if (result.status === 'DONE') return { status: 'DONE', modelId: result.modelId, avatarCount };
  const error = result.generations
    .filter((g) => g.status !== 'DONE')
    .map((g) => `style ${g.styleId}: ${g.error ?? g.status}`)
    .join('; ');
  return { status: 'PARTIAL', modelId: result.modelId, avatarCount, error };
}

/** The subject's failure as the campaign reports it: the pipeline's own message (which quotes the provider). */
function failureOutcome(err: unknown): SubjectOutcome {
  if (isCancellation(err)) return { status: 'CANCELLED' };
  if (err instanceof WorkflowExecutionAlreadyStartedError) {
    return {
      status: 'FAILED',
      error: `a pipeline ${err.workflowId} for this subject already exists and did not fail; it is not started twice`,
    };
  }
  const cause = err instanceof ChildWorkflowFailure && err.cause ? err.cause : err;
  if (isCancellation(cause)) return { status: 'CANCELLED' };
  const details = cause instanceof ApplicationFailure ? cause.details?.[0] : undefined;
  const modelId =
    typeof details === 'object' &&
    details !== null &&
    'modelId' in details &&
    typeof details.modelId === 'number'
      ? details.modelId
      : undefined;
  return {
    status: 'FAILED',
    error: cause instanceof Error ? cause.message : String(cause),
    ...(modelId !== undefined ? { modelId } : {}),
  };
}

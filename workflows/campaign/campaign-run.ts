import {
  allHandlersFinished,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  setHandler,
  sleep,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import type {
  CampaignInput,
  CampaignProgress,
  CampaignSettings,
  CampaignState,
  FinalLedger,
  SubjectOutcome,
} from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import { isErased, subjectWorkflowId } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import { PROGRESS_FEED_CAPACITY } from '@avatar-pipeline/client/contracts/progress-feed';
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
import { CampaignLedger } from './ledger';
import { failureOutcome } from './report';
import { reserveSubject } from './subject-budget';
import { startSubject } from './start-subject';
import { SubjectPages } from './subjects';
import { watchUnheardChildren, type RunningChild } from './unheard';
import { CampaignWindow } from './window';
import { CampaignWebhooks } from './webhooks';
import { ProgressLog } from '../progress-log';

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

/** What the campaign does next, once it has something to do. */
export type CampaignTurn = 'start-next' | 'continue-as-new' | 'finished';

/**
 * One run of a campaign: its ledger, its window and the subjects running, with the methods its
 * message handlers, its background loops and the workflow's main loop call. State changes go
 * through a few methods (track, ended, changed) so that every one is recorded for watchers.
 */
export class CampaignRun {
  private readonly campaignId = workflowInfo().workflowId;
  private readonly ledger: CampaignLedger;
  private readonly pages: SubjectPages;
  private readonly window: CampaignWindow;
  /** Subjects running, by manifest index: their child workflow id and subject id. */
  private readonly running = new Map<number, RunningChild>();
  private readonly indexOfChild = new Map<string, number>();
  /**
   * Of those, the subjects held at their review gate: waiting for a person, not the provider, so
   * outside the window (which starts others in their place) until their runs end.
   */
  private readonly reviewing: Set<number>;
  /** A child whose start is still pending when the run closes would never start: the run waits for them. */
  private readonly startsPending = new Set<number>();
  /** Erased subjects (by manifest index) this run may still meet: read before erasure, or running. */
  private readonly erased: Set<number>;
  /** Every change of progress is numbered for watchers; changes made together make one snapshot. */
  private readonly feed: ProgressLog<CampaignProgress>;
  private readonly webhooks: CampaignWebhooks;
  private unrecorded = true;
  private startedThisRun = 0;
  /** True once the run has stopped starting subjects for good (retries are refused then). */
  private closing = false;
  /** While true, the window is sampled and unheard children are looked for. */
  private watching = true;

  constructor(private readonly input: CampaignInput) {
    const { carried } = input;
    this.ledger = new CampaignLedger(input.manifest.total, Date.now(), carried);
    this.pages = new SubjectPages(input.manifest, input.pageSize);
    this.window = new CampaignWindow(input.window, carried?.window, {
      ...(input.fairnessKey !== undefined ? { key: input.fairnessKey } : {}),
      weight: input.fairnessWeight,
    });
    this.reviewing = new Set(carried?.reviewing ?? []);
    this.erased = new Set(carried?.erased ?? []);
    this.feed = new ProgressLog<CampaignProgress>(PROGRESS_FEED_CAPACITY, carried?.feed);
    this.webhooks = new CampaignWebhooks(input);
    for (const [index, workflowId, subjectId] of carried?.running ?? [])
      this.track(index, workflowId, subjectId);
    // A restarted campaign (a retry after it had ended) queues its subjects before anything else.
    if (input.retry) this.ledger.queueRetry(this.ledger.retryable(input.retry.indexes).accepted);
  }

  /** Subjects holding a place in the window: running and not waiting at their review gate. */
  private inWindow(): number {
    return this.running.size - this.reviewing.size;
  }

  private changed(): void {
    this.unrecorded = true;
  }

  private track(index: number, workflowId: string, subjectId: string): void {
    this.running.set(index, { workflowId, subjectId, heardAtMs: Date.now() });
    this.indexOfChild.set(workflowId, index);
    this.changed();
  }

  private readonly ended = (index: number, outcome: SubjectOutcome): void => {
    const entry = this.running.get(index);
    if (!entry) return;
    this.running.delete(index);
    // A subject that left the window for its review counted as a completion for the window then.
    const leftTheWindow = this.reviewing.delete(index);
    this.indexOfChild.delete(entry.workflowId);
    // An erased subject counts as cancelled, however their pipeline ended, and is named nowhere.
    if (this.erased.has(index)) this.ledger.finished(index, '', { status: 'CANCELLED' }, Date.now());
    else this.ledger.finished(index, entry.subjectId, outcome, Date.now());
    if (!leftTheWindow) this.window.ended();
    this.changed();
  };

  private recordProgress(): void {
    if (!this.unrecorded) return;
    this.unrecorded = false;
    const snapshot = this.progress();
    this.feed.record(snapshot);
    // Kept where describe reads it: `campaigns status` is answered by the server alone, also
    // while this run's workflow task waits, replays or has no worker (a query would wait with it).
    upsertMemo({ [CAMPAIGN_PROGRESS_MEMO]: snapshot });
    this.webhooks.changed();
  }

  private state(): CampaignState {
    const { ledger } = this;
    if (ledger.cancelled) return this.running.size > 0 ? 'cancelling' : 'cancelled';
    if (!ledger.hasWork() && this.running.size === 0) return 'completed';
    return ledger.paused ? 'paused' : 'running';
  }

  private readonly progress = (): CampaignProgress => {
    const { ledger, input, running, erased } = this;
    const now = Date.now();
    const eta = ledger.etaMs(now);
    const awaitingReview = [...this.reviewing].filter((index) => !erased.has(index));
    return {
      campaignId: this.campaignId,
      state: this.state(),
      ...(ledger.paused && ledger.pausedFor !== undefined ? { pausedFor: ledger.pausedFor } : {}),
      total: ledger.total,
      counts: ledger.counts(),
      maxInFlight: input.maxInFlight,
      window: this.window.view(),
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
  private cancelChild(workflowId: string): void {
    void getExternalWorkflowHandle(workflowId)
      .cancel()
      .catch(() => undefined);
  }

  private cancelAll(): void {
    this.ledger.cancelRemaining();
    for (const { workflowId } of this.running.values()) this.cancelChild(workflowId);
  }

  /** Signals from the subjects' runs and from erasure, queries, and the operator's updates. */
  listen(): void {
    setHandler(subjectEndedSignal, ({ workflowId, outcome }) => {
      const index = this.indexOfChild.get(workflowId);
      if (index !== undefined) this.ended(index, outcome);
    });
    setHandler(subjectAwaitingReviewSignal, ({ workflowId }) => this.leaveWindowForReview(workflowId));
    setHandler(subjectsErasedSignal, ({ indexes }) => this.erase(indexes));
    setHandler(campaignProgressQuery, this.progress);
    setHandler(campaignLedgerQuery, () => ({
      manifest: this.input.manifest,
      state: this.state(),
      counts: this.ledger.counts(),
      outcomes: this.ledger.outcomes(),
      startedAt: new Date(this.ledger.startedAtMs).toISOString(),
    }));
    setHandler(pauseCampaignUpdate, () => this.setPaused(true));
    setHandler(resumeCampaignUpdate, () => this.setPaused(false));
    setHandler(cancelCampaignUpdate, () => {
      this.cancelAll();
      this.changed();
      return this.progress();
    });
    setHandler(
      retryCampaignUpdate,
      (request) => {
        const { accepted } = this.ledger.retryable(request.indexes);
        this.ledger.queueRetry(accepted);
        this.changed();
        return { queued: accepted, progress: this.progress() };
      },
      {
        validator: (request) => {
          if (this.closing)
            throw new Error('the campaign is ending; retry it again once it has ended (it then restarts)');
          const { refused } = this.ledger.retryable(request.indexes);
          if (refused.length > 0) throw new Error(refused.join('; '));
        },
      },
    );
  }

  private setPaused(paused: boolean, reason?: string): CampaignProgress {
    this.ledger.paused = paused;
    this.ledger.pausedFor = reason;
    this.changed();
    return this.progress();
  }

  private leaveWindowForReview(workflowId: string): void {
    const index = this.indexOfChild.get(workflowId);
    if (index === undefined || this.reviewing.has(index)) return;
    this.reviewing.add(index);
    this.window.ended();
    this.changed();
  }

  private erase(indexes: number[]): void {
    const { ledger, pages, running } = this;
    const names = new Set<string>();
    const now = new Set(
      indexes.filter((index) => Number.isInteger(index) && index >= 0 && index < ledger.total),
    );
    for (const index of now) {
      this.erased.add(index);
      const child = running.get(index);
      const name = child?.subjectId ?? pages.peekId(index);
      if (name !== undefined) names.add(name);
      pages.erase(index);
      if (child) {
        // Still tracked until their pipeline ends (it reports to the campaign), under no name.
        child.subjectId = '';
        // A start still pending is cancelled once it has started (launch).
        if (!this.startsPending.has(index)) this.cancelChild(child.workflowId);
      }
    }
    for (const name of ledger.forgetFailures(now)) names.add(name);
    // Snapshots kept for watchers drop the person too (those carried from an earlier run included).
    this.feed.rewrite((snapshot) => ({
      ...snapshot,
      inFlight: snapshot.inFlight.filter((id) => !names.has(id)),
      recentFailures: snapshot.recentFailures.filter((f) => !names.has(f.subjectId)),
    }));
    this.changed();
  }

  /**
   * The loops that run beside the main one: the auto window's sampling, progress recording, the
   * progress webhooks and the watch for children that closed unheard. Recording, webhooks and the
   * watch are not cancellable: a campaign cancelled from outside goes on recording while it winds
   * down, waits for its children to end, and must still find one terminated meanwhile.
   */
  runInBackground(): void {
    if (this.window.auto) void this.sampleWindowWhileItLimits();
    this.feed.install();
    void CancellationScope.nonCancellable(() => this.recordEveryChange());
    void CancellationScope.nonCancellable(() => this.webhooks.announceProgress(this.progress));
    void CancellationScope.nonCancellable(() => this.watchUnheardChildren());
  }

  /**
   * The auto window samples the provider's signals while it is what limits the campaign: work is
   * waiting and the window is (nearly) full. Otherwise nothing is sampled, and history stays quiet.
   */
  private async sampleWindowWhileItLimits(): Promise<void> {
    const windowLimits = () => this.starting() && this.inWindow() >= 0.9 * this.window.size;
    while (this.watching) {
      await condition(() => !this.watching || windowLimits());
      if (!this.watching) break;
      await sleep(this.window.sampleEveryMs);
      if (this.watching && windowLimits()) await this.sampleWindow();
    }
  }

  private async sampleWindow(): Promise<void> {
    await this.window.sample(
      { inFlight: this.inWindow(), waiting: this.ledger.waiting() },
      {
        providerTaskQueue: this.input.pipeline.providerTaskQueue,
        workflowTaskQueue: this.input.pipeline.taskQueue ?? workflowInfo().taskQueue,
      },
    );
    this.changed();
  }

  private async recordEveryChange(): Promise<never> {
    for (;;) {
      await condition(() => this.unrecorded);
      this.recordProgress();
    }
  }

  private watchUnheardChildren(): Promise<void> {
    return watchUnheardChildren({
      campaignId: this.campaignId,
      manifest: this.input.manifest,
      everyMs: this.input.childCheckMs,
      running: this.running,
      starting: (index) => this.startsPending.has(index),
      stopped: () => !this.watching,
      ended: this.ended,
    });
  }

  /**
   * A tenant's campaign learns how many of the tenant's campaigns share its window before it
   * starts anyone, so that a tenant starting several at once does not start each at the size of a
   * lone one (campaigns without a tenant key sample only once their window is full).
   */
  async learnTenantShare(): Promise<void> {
    if (this.window.auto && this.input.fairnessKey !== undefined && !this.input.carried?.window) {
      await this.sampleWindow();
    }
  }

  private starting(): boolean {
    return !this.ledger.cancelled && !this.ledger.paused && this.ledger.hasWork();
  }

  private historyIsLong(): boolean {
    const info = workflowInfo();
    return (
      info.continueAsNewSuggested ||
      info.historyLength > HISTORY_EVENTS_SOFT_LIMIT ||
      info.historySize > HISTORY_BYTES_SOFT_LIMIT
    );
  }

  private wantsNewRun(): boolean {
    const { ledger } = this;
    return (
      !ledger.cancelled &&
      ((ledger.hasWork() && this.startedThisRun >= this.input.subjectsPerRun) ||
        ((ledger.hasWork() || this.running.size > 0) &&
          (this.historyIsLong() || workflowInfo().targetWorkerDeploymentVersionChanged)))
    );
  }

  private canStart(): boolean {
    return this.starting() && this.inWindow() < this.window.size && !this.wantsNewRun();
  }

  private finished(): boolean {
    return this.running.size === 0 && (this.ledger.cancelled || !this.ledger.hasWork());
  }

  /** Waits until a subject can start, the run should hand over, or the campaign is over. */
  async nextTurn(): Promise<CampaignTurn> {
    await condition(() => this.canStart() || this.finished() || this.wantsNewRun());
    if (this.finished()) return 'finished';
    return this.wantsNewRun() ? 'continue-as-new' : 'start-next';
  }

  /** Takes the next subject of the ledger and starts their run (without waiting for the start). */
  async startNext(): Promise<void> {
    const { ledger } = this;
    const index = ledger.takeNext();
    const subject = await this.pages.get(index);
    if (ledger.cancelled) {
      ledger.putBack(index);
      ledger.cancelRemaining();
      return;
    }
    if (isErased(subject) || this.erased.has(index)) {
      // The person was erased before their turn (or while their page was read): they are never
      // started, and count as cancelled.
      ledger.finished(index, '', { status: 'CANCELLED' }, Date.now());
      this.changed();
      return;
    }
    if (this.input.budgeted) {
      const refusal = await reserveSubject(
        this.input.tenant,
        subjectWorkflowId(this.campaignId, subject),
        subject,
      );
      if (refusal !== undefined) {
        // Held at the cap rather than failed: the subject waits, first in line, for a resume.
        ledger.putBack(index);
        this.setPaused(true, refusal);
        return;
      }
    }
    void this.launch(index, subject);
  }

  private async launch(index: number, subject: CampaignSubject): Promise<void> {
    const workflowId = subjectWorkflowId(this.campaignId, subject);
    this.track(index, workflowId, subject.subjectId);
    this.startedThisRun++;
    this.startsPending.add(index);
    try {
      await startSubject(this.campaignId, workflowId, subject, this.input);
      // A cancel or an erasure that came while the start was pending could not reach the child yet.
      if (this.erased.has(index) || this.ledger.cancelled) this.cancelChild(workflowId);
    } catch (err) {
      this.ended(index, failureOutcome(err));
    } finally {
      this.startsPending.delete(index);
    }
  }

  /**
   * Stops this run's loops once every pending start and handler is done, and returns the input of
   * the next run: the ledger, the window and the running subjects, which go on running.
   */
  async handOver(): Promise<CampaignInput> {
    this.watching = false;
    await condition(() => this.startsPending.size === 0 && allHandlersFinished());
    this.recordProgress();
    this.webhooks.stop();
    const { running, reviewing, window } = this;
    const erasedRunning = [...this.erased].filter((index) => running.has(index));
    return {
      ...settingsOf(this.input),
      carried: {
        ...this.ledger.carry(),
        running: [...running.entries()].map(([index, r]) => [index, r.workflowId, r.subjectId]),
        ...(reviewing.size > 0 ? { reviewing: [...reviewing] } : {}),
        ...(erasedRunning.length > 0 ? { erased: erasedRunning } : {}),
        ...(window.carry() ? { window: window.carry()! } : {}),
        feed: this.feed.carry(FEED_CARRIED),
      },
    };
  }

  /** Cancelled from outside (e.g. the Temporal UI): as the cancel update, then waits for the children. */
  async windDownCancelled(): Promise<void> {
    await CancellationScope.nonCancellable(async () => {
      this.cancelAll();
      await condition(() => this.running.size === 0);
    });
  }

  /** The campaign is over: the last progress, the completion webhook, and the final ledger. */
  async finish(): Promise<FinalLedger> {
    const { ledger, campaignId } = this;
    this.watching = false;
    this.closing = true;
    this.recordProgress();
    await condition(allHandlersFinished);
    const outcomes = ledger.carry().outcomes;
    const state = ledger.cancelled ? 'cancelled' : 'completed';
    upsertMemo({ state });
    await this.webhooks.completed({ campaignId, state, total: ledger.total, counts: ledger.counts() });
    return {
      campaignId,
      state,
      manifest: this.input.manifest,
      settings: settingsOf(this.input),
      total: ledger.total,
      counts: ledger.counts(),
      outcomes,
      startedAt: new Date(ledger.startedAtMs).toISOString(),
      finishedAt: new Date(Date.now()).toISOString(),
      runs: ledger.run,
    };
  }
}

function settingsOf(input: CampaignInput): CampaignSettings {
  const { carried: _carried, retry: _retry, ...settings } = input;
  return settings;
}

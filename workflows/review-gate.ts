import { ApplicationFailure, condition, log, setHandler } from '@temporalio/workflow';
import type { GenerationResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import type {
  ReviewAnswer,
  ReviewDecision,
  ReviewOptions,
  ReviewOutcome,
  ReviewProgress,
  ReviewSubmission,
  StyleReview,
} from '@avatar-pipeline/client/contracts/review';
import { FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';
import { reviewUpdate } from '@avatar-pipeline/client/contracts/workflow-definitions';
import type { PipelineTracker } from './pipeline-tracker';
import type { RunWebhooks } from './run-webhooks';

/** Orders a style again after a reviewer asked for it; never adopts the orders named. */
export type Regenerate = (styleId: number, replacedOrders: number[]) => Promise<GenerationResult>;

type Effect = ReviewAnswer['results'][number]['effect'];

/** The state a decision leaves a style or avatar in. */
const SETTLED_BY = { approve: 'approved', reject: 'rejected', regenerate: 'regenerating' } as const;

/** A style in review, with the generation its avatars come from. */
interface GateStyle extends StyleReview {
  generation?: GenerationResult;
}

/** A batch of decisions the run has applied, waiting to be announced (review.decided) and logged. */
interface Decided {
  reviewer: string;
  decisions: ReviewDecision[];
}

/**
 * The review gate of one run: its update handler takes decisions from the run's start (a decision
 * on a style not generated yet is kept for when it is), and `review` holds the run once its styles
 * are generated, until every style is approved, rejected or failed, or the deadline decides the rest.
 * A regenerate decision orders the style again and puts its new avatars under review. The handler
 * only records; the run's own loop orders, announces and waits, so no handler outlives the run.
 */
export class ReviewGate {
  private readonly styles = new Map<number, GateStyle>();
  private readonly queued: number[] = [];
  private readonly decided: Decided[] = [];
  private state: ReviewProgress['state'] = 'waiting';
  private openedAt?: number;
  private deadlinePassed = false;

  constructor(
    private readonly options: ReviewOptions,
    styleIds: number[],
    private readonly tracker: PipelineTracker,
    private readonly webhooks: RunWebhooks,
    /** Told when the gate opens (a campaign's run tells its campaign, whose window moves on). */
    private readonly opened: () => Promise<void>,
  ) {
    for (const styleId of styleIds) {
      this.styles.set(styleId, { styleId, state: 'pending', avatars: [], regeneratedOrders: [] });
    }
    setHandler(reviewUpdate, (submission: ReviewSubmission) => this.apply(submission), {
      validator: (submission) => this.refuseInvalid(submission),
    });
    this.publish();
  }

  /** A style's generation came in: its avatars go under review (or straight to a decision kept for it). */
  offer(generation: GenerationResult): void {
    const style = this.styles.get(generation.styleId);
    if (style === undefined) return;
    style.generation = generation;
    style.avatars = [];
    if (generation.status !== 'DONE') {
      style.state = 'failed';
      delete style.kept;
    } else {
      style.state = 'awaiting';
      if (generation.orderId !== undefined) style.orderId = generation.orderId;
      const kept = this.deadlinePassed ? this.options.onDeadline : style.kept;
      delete style.kept;
      if (kept !== undefined) this.decideStyle(style, kept);
    }
    this.publish();
  }

  /**
   * Holds the run until every style is decided: regenerations ordered as asked, reminders and an
   * escalation on durable timers, and at the deadline the operator's outcome for what is left.
   */
  async review(regenerate: Regenerate): Promise<void> {
    this.state = 'open';
    this.openedAt = Date.now();
    this.tracker.stage('awaiting-review');
    this.publish();
    await this.webhooks.reviewRequested(this.progress());
    await this.opened();
    const deadlineAt = this.openedAt + this.options.deadlineMs;
    const escalateAt =
      this.options.escalateAfterMs !== undefined ? this.openedAt + this.options.escalateAfterMs : undefined;
    let escalated = false;
    let nextReminderAt = this.openedAt + this.options.reminderEveryMs;
    const regenerations: Promise<void>[] = [];
    for (;;) {
      await this.announceDecided();
      regenerations.push(...this.startQueued(regenerate));
      if (this.settled()) break;
      const timers = [
        ...(this.deadlinePassed ? [] : [deadlineAt]),
        ...(nextReminderAt < deadlineAt ? [nextReminderAt] : []),
        ...(escalateAt !== undefined && !escalated ? [escalateAt] : []),
      ];
      const wakeAt = timers.length > 0 ? Math.min(...timers) : undefined;
      const woken = () => this.settled() || this.queued.length > 0 || this.decided.length > 0;
      if (wakeAt === undefined) {
        await condition(woken);
        continue;
      }
      if (await condition(woken, Math.max(1, wakeAt - Date.now()))) continue;
      const now = Date.now();
      if (!this.deadlinePassed && now >= deadlineAt) {
        this.expire();
      } else if (escalateAt !== undefined && !escalated && now >= escalateAt) {
        escalated = true;
        await this.webhooks.reviewReminder(this.progress(), { escalation: true });
      } else if (now >= nextReminderAt) {
        nextReminderAt += this.options.reminderEveryMs;
        await this.webhooks.reviewReminder(this.progress(), { escalation: false });
      }
    }
    await Promise.all(regenerations);
    this.state = 'closed';
    this.publish();
  }

  /** The run's generations as review left them: approved styles with their approved avatars, and failures. */
  reviewed(): GenerationResult[] {
    const generations: GenerationResult[] = [];
    for (const style of this.styles.values()) {
      const generation = style.generation;
      if (generation === undefined) continue;
      if (style.state === 'failed') generations.push({ ...generation, avatars: [] });
      if (style.state !== 'approved') continue;
      const rejected = new Set(style.avatars.filter((a) => a.decision === 'reject').map((a) => a.avatarId));
      generations.push({
        ...generation,
        avatars: generation.avatars.filter((a) => !rejected.has(a.avatarId)),
      });
    }
    return generations;
  }

  /** What review decided, for the result; fails the run (NothingApproved) when nothing was approved. */
  outcome(): ReviewOutcome {
    const ids = (state: StyleReview['state']) =>
      [...this.styles.values()].filter((s) => s.state === state).map((s) => s.styleId);
    const outcome: ReviewOutcome = {
      approved: ids('approved'),
      rejected: ids('rejected'),
      regenerated: [...this.styles.values()]
        .filter((s) => s.regeneratedOrders.length > 0)
        .map((s) => ({ styleId: s.styleId, orderIds: [...s.regeneratedOrders] })),
      ...(this.deadlinePassed ? { deadlinePassed: true } : {}),
    };
    if (outcome.approved.length === 0 && outcome.rejected.length > 0) {
      throw ApplicationFailure.nonRetryable(
        `No style was approved in review (rejected: ${outcome.rejected.join(', ')})`,
        FAILURE_TYPES.nothingApproved,
        { review: outcome },
      );
    }
    return outcome;
  }

  progress(): ReviewProgress {
    return {
      state: this.state,
      ...(this.openedAt !== undefined
        ? {
            openedAt: new Date(this.openedAt).toISOString(),
            deadlineAt: new Date(this.openedAt + this.options.deadlineMs).toISOString(),
          }
        : {}),
      onDeadline: this.options.onDeadline,
      ...(this.deadlinePassed ? { deadlinePassed: true } : {}),
      styles: [...this.styles.values()].map(({ generation: _generation, ...review }) => ({
        ...review,
        avatars: review.avatars.map((a) => ({ ...a })),
        regeneratedOrders: [...review.regeneratedOrders],
      })),
    };
  }

  private settled(): boolean {
    return [...this.styles.values()].every((s) => ['approved', 'rejected', 'failed'].includes(s.state));
  }

  private refuseInvalid(submission: ReviewSubmission): void {
    const issues: { path: string; message: string }[] = [];
    const seen = new Map<string, { index: number; decision: string }>();
    submission.decisions.forEach((decision, index) => {
      const problem = this.problemWith(decision);
      if (problem) issues.push({ path: `decisions.${index}.${problem.field}`, message: problem.message });
      const key = `${decision.styleId}/${decision.avatarId ?? '*'}`;
      const earlier = seen.get(key);
      if (earlier && earlier.decision !== decision.decision) {
        issues.push({
          path: `decisions.${index}.decision`,
          message: `contradicts decisions.${earlier.index} (${earlier.decision}) on the same ${decision.avatarId !== undefined ? 'avatar' : 'style'}`,
        });
      }
      seen.set(key, { index, decision: decision.decision });
    });
    if (issues.length > 0) {
      throw ApplicationFailure.nonRetryable(
        issues.map((i) => `${i.path}: ${i.message}`).join('; '),
        FAILURE_TYPES.reviewRefused,
        {
          issues,
        },
      );
    }
  }

  /** Why a decision cannot be taken now, naming its field; undefined when it can (repeats can). */
  private problemWith(d: ReviewDecision): { field: string; message: string } | undefined {
    if (this.state === 'closed')
      return { field: 'styleId', message: 'the review is over: every style is decided' };
    const style = this.styles.get(d.styleId);
    if (style === undefined) {
      const styles = [...this.styles.keys()].join(', ');
      return { field: 'styleId', message: `style ${d.styleId} is not one of this run's styles (${styles})` };
    }
    const name = `style ${d.styleId}`;
    if (style.state === 'failed')
      return { field: 'styleId', message: `${name} failed in generation: nothing to review` };
    if (d.orderId !== undefined && d.orderId !== style.orderId) {
      if (d.decision === 'regenerate' && style.regeneratedOrders.includes(d.orderId)) return undefined;
      return {
        field: 'orderId',
        message: `order ${d.orderId} is not the order of ${name} under review (${style.orderId ?? 'none yet'})`,
      };
    }
    if (d.avatarId !== undefined) return this.avatarProblem(style, d.avatarId, d.decision);
    const settled = style.state === 'approved' || style.state === 'rejected';
    if (settled && SETTLED_BY[d.decision] !== style.state) {
      return { field: 'decision', message: `${name} was already ${style.state}` };
    }
    if (style.kept !== undefined && style.kept !== d.decision) {
      return { field: 'decision', message: `${name} already has "${style.kept}" waiting for its avatars` };
    }
    return undefined;
  }

  private avatarProblem(
    style: GateStyle,
    avatarId: number,
    decision: ReviewDecision['decision'],
  ): { field: string; message: string } | undefined {
    const name = `style ${style.styleId}`;
    if (style.state === 'pending' || style.state === 'regenerating') {
      return {
        field: 'avatarId',
        message: `${name} has no avatars under review yet; decide on the whole style, or once they are in`,
      };
    }
    if (!style.generation?.avatars.some((a) => a.avatarId === avatarId)) {
      return {
        field: 'avatarId',
        message: `avatar ${avatarId} is not one of the avatars of ${name} under review`,
      };
    }
    const earlier = style.avatars.find((a) => a.avatarId === avatarId);
    if (earlier !== undefined && earlier.decision !== decision) {
      return { field: 'decision', message: `avatar ${avatarId} was already ${SETTLED_BY[earlier.decision]}` };
    }
    return undefined;
  }

  private apply(submission: ReviewSubmission): ReviewAnswer {
    const results = submission.decisions.map((decision, index) => ({ index, effect: this.take(decision) }));
    const applied = submission.decisions.filter((_, i) => results[i]!.effect !== 'repeated');
    if (applied.length > 0) this.decided.push({ reviewer: submission.reviewer.via, decisions: applied });
    this.publish();
    return { results, review: this.progress() };
  }

  private take(d: ReviewDecision): Effect {
    const style = this.styles.get(d.styleId)!;
    if (d.orderId !== undefined && d.orderId !== style.orderId) return 'repeated';
    if (d.avatarId !== undefined) {
      if (style.state !== 'awaiting' || style.avatars.some((a) => a.avatarId === d.avatarId))
        return 'repeated';
      style.avatars.push({ avatarId: d.avatarId, decision: d.decision === 'approve' ? 'approve' : 'reject' });
      if (style.avatars.length === style.generation!.avatars.length) this.settle(style);
      return 'applied';
    }
    if (style.state === 'pending' || style.state === 'regenerating') {
      if (d.decision === 'regenerate' && style.state === 'regenerating') return 'repeated';
      if (style.kept === d.decision) return 'repeated';
      style.kept = d.decision;
      return 'kept';
    }
    if (style.state !== 'awaiting') return 'repeated';
    this.decideStyle(style, d.decision);
    return 'applied';
  }

  /** A decision on a whole style whose avatars are in: undecided avatars take it, or the style is ordered again. */
  private decideStyle(style: GateStyle, decision: ReviewDecision['decision']): void {
    if (decision === 'regenerate') {
      if (style.orderId !== undefined) style.regeneratedOrders.push(style.orderId);
      style.state = 'regenerating';
      style.avatars = [];
      this.queued.push(style.styleId);
      return;
    }
    const decided = new Set(style.avatars.map((a) => a.avatarId));
    for (const avatar of style.generation?.avatars ?? []) {
      if (!decided.has(avatar.avatarId)) style.avatars.push({ avatarId: avatar.avatarId, decision });
    }
    this.settle(style);
  }

  /** Every avatar decided: the style is approved when any avatar is. */
  private settle(style: GateStyle): void {
    style.state = style.avatars.some((a) => a.decision === 'approve') ? 'approved' : 'rejected';
    if ((style.generation?.avatars.length ?? 0) === 0) style.state = 'rejected';
  }

  /** The deadline passed: what is left undecided takes the operator's outcome, now or as it comes in. */
  private expire(): void {
    this.deadlinePassed = true;
    for (const style of this.styles.values()) {
      if (style.state === 'awaiting') this.decideStyle(style, this.options.onDeadline);
    }
    this.decided.push({ reviewer: 'deadline', decisions: [] });
    this.publish();
  }

  private startQueued(regenerate: Regenerate): Promise<void>[] {
    return this.queued.splice(0).map(async (styleId) => {
      const style = this.styles.get(styleId)!;
      this.tracker.orderedAgain(styleId);
      const generation = await regenerate(styleId, [...style.regeneratedOrders]);
      this.offer(generation);
    });
  }

  private async announceDecided(): Promise<void> {
    for (const batch of this.decided.splice(0)) {
      log.info('review decisions', { reviewer: batch.reviewer, decisions: batch.decisions });
      await this.webhooks.reviewDecided(this.progress(), batch);
    }
  }

  private publish(): void {
    this.tracker.review(this.progress());
  }
}

/**
 * The run's gate when its start asked for review. A run that did not answers every decision with
 * a refusal that says so, rather than Temporal's "no handler" for an update it never registered.
 */
export function reviewGateOf(
  review: ReviewOptions | undefined,
  styleIds: number[],
  tracker: PipelineTracker,
  webhooks: RunWebhooks,
  opened: () => Promise<void>,
): ReviewGate | undefined {
  if (review?.required) return new ReviewGate(review, styleIds, tracker, webhooks, opened);
  const refuse = (): ReviewAnswer => ({
    results: [],
    review: { state: 'closed', onDeadline: 'reject', styles: [] },
  });
  setHandler(reviewUpdate, (_submission: ReviewSubmission) => refuse(), {
    validator: (_submission: ReviewSubmission) => {
      const issues = [
        { path: 'decisions', message: 'this run was started without review: nothing waits for a decision' },
      ];
      throw ApplicationFailure.nonRetryable(
        `${issues[0]!.path}: ${issues[0]!.message}`,
        FAILURE_TYPES.reviewRefused,
        {
          issues,
        },
      );
    },
  });
  return undefined;
}

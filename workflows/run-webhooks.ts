import { ApplicationFailure, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { PipelineInput } from '@avatar-pipeline/client/contracts/pipeline-input';
import type { GenerationResult, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import {
  DEFAULT_CALLBACK_EVENTS,
  tenantOf,
  type WebhookSource,
} from '@avatar-pipeline/client/contracts/webhook-delivery';
import type { ReviewDecision, ReviewProgress } from '@avatar-pipeline/client/contracts/review';
import { WebhookAnnouncer } from './webhook-announcer';

/** What a run's events are built from: who it is for and where its callback goes. */
type RunSubscription = Partial<Pick<PipelineInput, 'subjectId' | 'callbackUrl' | 'callbackEvents'>> & {
  campaignId?: string;
};

/**
 * A run's webhook events, one method per thing that happens to a run. Each hands its event to
 * delivery (workflows/webhook-announcer.ts) and returns; the run never waits for a receiver.
 */
export class RunWebhooks {
  private readonly announcer: WebhookAnnouncer;
  private readonly run: { workflowId: string; subjectId?: string; campaignId?: string };

  constructor(input: RunSubscription) {
    const source: WebhookSource = {
      tenant: tenantOf(input),
      ...(input.callbackUrl
        ? {
            callback: {
              url: input.callbackUrl,
              events: input.callbackEvents ?? [...DEFAULT_CALLBACK_EVENTS],
            },
          }
        : {}),
    };
    this.announcer = new WebhookAnnouncer(source);
    this.run = {
      workflowId: workflowInfo().workflowId,
      ...(input.subjectId ? { subjectId: input.subjectId } : {}),
      ...(input.campaignId ? { campaignId: input.campaignId } : {}),
    };
  }

  started(styles: number[]): Promise<void> {
    return this.announcer.announce('pipeline.started', { ...this.run, styles });
  }

  trained(modelId: number): Promise<void> {
    return this.announcer.announce('training.completed', { ...this.run, modelId });
  }

  trainingFailed(err: unknown, modelId: number | undefined): Promise<void> {
    if (isCancellation(err)) return Promise.resolve();
    return this.announcer.announce('training.failed', {
      ...this.run,
      ...(modelId !== undefined ? { modelId } : {}),
      error: errorOf(err),
    });
  }

  /** A style's end: its avatars (with their archive keys; links are made at delivery) or its error. */
  styleEnded(modelId: number, generation: GenerationResult): Promise<void> {
    const { styleId, orderId } = generation;
    const order = orderId !== undefined ? { orderId } : {};
    const attempts = {
      ...(generation.attempts !== undefined ? { attempts: generation.attempts } : {}),
      ...(generation.replacedOrders ? { replacedOrders: generation.replacedOrders } : {}),
    };
    if (generation.status === 'DONE') {
      return this.announcer.announce('style.completed', {
        ...this.run,
        modelId,
        styleId,
        ...order,
        avatars: generation.avatars,
        ...(generation.notArchived ? { notArchived: generation.notArchived } : {}),
        ...attempts,
      });
    }
    return this.announcer.announce('style.failed', {
      ...this.run,
      modelId,
      styleId,
      ...order,
      ...(generation.avatars.length > 0 ? { avatars: generation.avatars } : {}),
      ...attempts,
      error: { message: generation.error ?? generation.status },
    });
  }

  /** The gate opened: what waits for decisions, and until when. */
  reviewRequested(review: ReviewProgress): Promise<void> {
    return this.announcer.announce('review.requested', { ...this.run, review: reviewSummary(review) });
  }

  reviewReminder(review: ReviewProgress, reminder: { escalation: boolean }): Promise<void> {
    return this.announcer.announce('review.reminder', {
      ...this.run,
      escalation: reminder.escalation,
      review: reviewSummary(review),
    });
  }

  /** Decisions taken (by a reviewer, or by the deadline), and where review stands after them. */
  reviewDecided(
    review: ReviewProgress,
    decided: { reviewer: string; decisions: ReviewDecision[] },
  ): Promise<void> {
    return this.announcer.announce('review.decided', {
      ...this.run,
      reviewer: decided.reviewer,
      decisions: decided.decisions,
      review: reviewSummary(review),
    });
  }

  completed(result: PipelineResult): Promise<void> {
    return this.announcer.announce('pipeline.completed', { ...this.run, result }, { last: true });
  }

  /** The failed or cancelled event for what the run threw. */
  ended(err: unknown): Promise<void> {
    if (isCancellation(err)) return this.announcer.announce('pipeline.cancelled', this.run, { last: true });
    return this.announcer.announce('pipeline.failed', { ...this.run, error: errorOf(err) }, { last: true });
  }
}

/** Activity and child failures wrap the failure that explains them; report that one. */
function errorOf(err: unknown): { message: string; type?: string } {
  let root = err;
  for (let depth = 0; depth < 10 && root instanceof Error && root.cause instanceof Error; depth++) {
    root = root.cause;
  }
  return {
    message: root instanceof Error ? root.message : String(root),
    ...(root instanceof ApplicationFailure && root.type ? { type: root.type } : {}),
  };
}

/** A review's state in an event: each style's state and order, not its avatars' decisions. */
function reviewSummary(review: ReviewProgress) {
  return {
    state: review.state,
    ...(review.deadlineAt !== undefined ? { deadlineAt: review.deadlineAt } : {}),
    onDeadline: review.onDeadline,
    ...(review.deadlinePassed ? { deadlinePassed: true } : {}),
    styles: review.styles.map((s) => ({
      styleId: s.styleId,
      state: s.state,
      ...(s.orderId !== undefined ? { orderId: s.orderId } : {}),
    })),
  };
}

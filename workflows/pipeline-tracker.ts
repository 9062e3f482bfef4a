import {
  log,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { StatusReport } from '../src/contracts/provider-activity-results';
import {
  STYLE_STAGES,
  type GenerationResult,
  type PipelineProgress,
  type PipelineStage,
  type StyleAvatar,
  type StyleProgress,
} from '@avatar-pipeline/client/contracts/pipeline-state';
import {
  ModelIdAttribute,
  PipelineStageAttribute,
  SubjectIdAttribute,
} from '@avatar-pipeline/client/contracts/search-attributes';
import type { ReviewProgress } from '@avatar-pipeline/client/contracts/review';
import { progressQuery } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { ProgressLog } from './progress-log';

const TERMINAL_STYLE_STAGES = new Set<StyleProgress['stage']>(['done', 'failed', 'cancelled']);

/** What a tracked run starts from: a pipeline or training run at its beginning, a generation run at `generating`. */
export interface TrackedRun {
  subjectId?: string;
  campaignId?: string;
  /** Selfies it uploads (0 when it trains nothing). */
  imageCount: number;
  /** Styles it generates (none when it only trains). */
  styles: number[];
  stage?: PipelineStage;
  modelId?: number;
  /** Styles a retried run already has DONE, shown as done from the start. */
  kept?: GenerationResult[];
}

/**
 * A run's live state: answers the progress query and the progress feed, and keeps the UI's
 * current details and search attributes in step.
 */
export class PipelineTracker {
  private readonly state: PipelineProgress;
  private readonly attributes = new PipelineSearchAttributes();
  /** Every snapshot, numbered, for watchers (the API's event stream) that query the changes since their last. */
  private readonly feed = new ProgressLog<PipelineProgress>();

  constructor(workflowId: string, start: TrackedRun) {
    this.state = {
      workflowId,
      ...(start.subjectId ? { subjectId: start.subjectId } : {}),
      ...(start.campaignId ? { campaignId: start.campaignId } : {}),
      stage: start.stage ?? 'creating-model',
      ...(start.modelId !== undefined ? { modelId: start.modelId } : {}),
      uploads: { done: 0, total: start.imageCount },
      training: { polls: 0 },
      styles: [
        ...(start.kept ?? []).map((g): StyleProgress => ({
          styleId: g.styleId,
          stage: 'done',
          ...(g.orderId !== undefined ? { orderId: g.orderId } : {}),
          providerStatus: 'DONE',
          avatarCount: g.avatars.length,
          avatars: styleAvatarsOf(g),
        })),
        ...start.styles.map((styleId): StyleProgress => ({ styleId, stage: 'pending' })),
      ],
    };
    setHandler(progressQuery, () => this.snapshot());
    this.feed.install();
    if (start.stage) this.attributes.stage(start.stage);
    this.publish();
  }

  snapshot(): PipelineProgress {
    // structuredClone is not available in the workflow sandbox; the state is plain JSON.
    return JSON.parse(JSON.stringify(this.state)) as PipelineProgress;
  }

  get modelId(): number | undefined {
    return this.state.modelId;
  }

  stage(stage: PipelineStage): void {
    this.state.stage = stage;
    this.attributes.stage(stage);
    this.publish();
    log.info(`pipeline stage ${stage}`, this.logContext());
  }

  model(modelId: number): void {
    this.state.modelId = modelId;
    upsertMemo({ modelId });
    this.attributes.model(modelId);
    this.publish();
  }

  uploaded(done: number): void {
    this.state.uploads.done = done;
    this.publish();
  }

  training(status: StatusReport, polls: number): void {
    this.state.training = {
      providerStatus: status.status,
      ...(status.progress !== undefined ? { progress: status.progress } : {}),
      polls,
    };
    this.publish();
  }

  style(update: StyleProgress): void {
    const index = this.state.styles.findIndex((s) => s.styleId === update.styleId);
    if (index < 0) return;
    const current = this.state.styles[index]!;
    // A style ordered again (its avatars failed their checks) starts over, with nothing of the last order.
    if ((update.attempt ?? 1) > (current.attempt ?? 1)) {
      this.state.styles[index] = { ...update };
      this.publish();
      return;
    }
    // A last poll may report after "collecting": an end is final and no stage goes back
    // (STYLE_STAGES is in order).
    if (TERMINAL_STYLE_STAGES.has(current.stage) && !TERMINAL_STYLE_STAGES.has(update.stage)) return;
    if (STYLE_STAGES.indexOf(update.stage) < STYLE_STAGES.indexOf(current.stage)) return;
    this.state.styles[index] = { ...current, ...update };
    this.publish();
  }

  /** A style a reviewer asked for again: it starts over, with nothing of the order it replaces. */
  orderedAgain(styleId: number): void {
    const index = this.state.styles.findIndex((s) => s.styleId === styleId);
    if (index < 0) return;
    this.state.styles[index] = { styleId, stage: 'pending' };
    this.publish();
  }

  review(review: ReviewProgress): void {
    this.state.review = review;
    this.publish();
  }

  failed(message: string): void {
    this.state.error = message;
    this.stage('failed');
  }

  cancelled(): void {
    for (const style of this.state.styles) {
      if (!TERMINAL_STYLE_STAGES.has(style.stage)) style.stage = 'cancelled';
    }
    this.stage('cancelled');
  }

  /** The workflow logger adds workflow id, run id and type; subject is SubjectId as started (never a secret). */
  private logContext(): Record<string, unknown> {
    return {
      stage: this.state.stage,
      ...(this.attributes.subjectKey ? { subject: this.attributes.subjectKey } : {}),
      ...(this.state.campaignId ? { campaignId: this.state.campaignId } : {}),
      ...(this.state.modelId !== undefined ? { modelId: this.state.modelId } : {}),
      ...(this.state.error ? { error: this.state.error } : {}),
    };
  }

  private publish(): void {
    setCurrentDetails(renderDetails(this.state));
    this.feed.record(this.snapshot());
  }
}

/**
 * Keeps the run's PipelineStage and ModelId search attributes in step with the pipeline, when
 * its starter set PipelineStage (which tells that the namespace has the attributes registered;
 * upserting an unregistered one would fail every workflow task).
 */
class PipelineSearchAttributes {
  private readonly enabled: boolean;
  /** SubjectId as the starter set it (a token when payloads are encrypted), for log context. */
  readonly subjectKey: string | undefined;

  constructor() {
    const attributes = workflowInfo().typedSearchAttributes;
    this.subjectKey = attributes.get(SubjectIdAttribute);
    this.enabled = attributes.get(PipelineStageAttribute) !== undefined;
  }

  stage(stage: PipelineStage): void {
    if (!this.enabled) return;
    if (workflowInfo().typedSearchAttributes.get(PipelineStageAttribute) === stage) return;
    upsertSearchAttributes([{ key: PipelineStageAttribute, value: stage }]);
  }

  model(modelId: number): void {
    if (this.enabled) upsertSearchAttributes([{ key: ModelIdAttribute, value: modelId }]);
  }
}

/** A done style's avatars as its progress names them: ids, archive keys and checks only. */
export function styleAvatarsOf(generation: GenerationResult): StyleAvatar[] {
  return generation.avatars.map((a) => ({
    avatarId: a.avatarId,
    ...(a.archiveKey !== undefined ? { archiveKey: a.archiveKey } : {}),
    ...(a.check !== undefined ? { check: a.check } : {}),
  }));
}

/** Markdown for the Temporal UI's "current details". */
function renderDetails(p: PipelineProgress): string {
  const lines = [`**Stage:** ${p.stage}`];
  if (p.subjectId) lines.push(`**Subject:** ${p.subjectId}`);
  if (p.modelId !== undefined) lines.push(`**Model:** ${p.modelId}`);
  lines.push(`**Selfies uploaded:** ${p.uploads.done}/${p.uploads.total}`);
  if (p.training.providerStatus) {
    const pct = p.training.progress === undefined ? '' : ` (${p.training.progress}%)`;
    lines.push(`**Training:** ${p.training.providerStatus}${pct}, ${p.training.polls} polls`);
  }
  lines.push('', '| style | stage | order | status | avatars |', '|---|---|---|---|---|');
  for (const s of p.styles) {
    const status = s.providerStatus
      ? `${s.providerStatus}${s.progress === undefined ? '' : ` ${s.progress}%`}`
      : '';
    lines.push(`| ${s.styleId} | ${s.stage} | ${s.orderId ?? ''} | ${status} | ${s.avatarCount ?? ''} |`);
  }
  if (p.review && p.review.state !== 'waiting') {
    const waiting = p.review.styles.filter((s) => s.state === 'awaiting').map((s) => s.styleId);
    const due = p.review.deadlineAt ? `, deadline ${p.review.deadlineAt} (then ${p.review.onDeadline})` : '';
    lines.push(
      '',
      `**Review:** ${p.review.state}${waiting.length > 0 ? `, awaiting styles ${waiting.join(', ')}` : ''}${due}`,
    );
  }
  if (p.error) lines.push('', `**Error:** ${p.error}`);
  return lines.join('\n');
}

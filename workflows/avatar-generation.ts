import {
  ApplicationFailure,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  workflowInfo,
} from '@temporalio/workflow';
import type { GenerationWorkflowInput } from '../src/contracts/model-runs';
import type { GenerationResult, PipelineResult } from '../src/contracts/pipeline-state';
import { PipelineTracker } from './pipeline-tracker';
import { styleGeneration } from './style-generation';

/** What generating needs besides the model and the styles. */
export type GenerationSettings = Pick<
  GenerationWorkflowInput,
  'gender' | 'generationDeadlineMs' | 'polling' | 'providerTaskQueue' | 'archiveAvatars' | 'subjectId'
>;

/**
 * The generation half of every pipeline: every style in parallel, one child workflow each
 * (`<workflowId>/style-<styleId>`). A style that fails is reported in its entry; only
 * cancellation propagates.
 */
export async function generateStyles(
  modelId: number,
  styles: number[],
  settings: GenerationSettings,
  tracker: PipelineTracker,
): Promise<GenerationResult[]> {
  tracker.stage('generating');
  return Promise.all(styles.map((styleId) => generateStyle(modelId, styleId, settings, tracker)));
}

/**
 * The run's result from every style's entry; fails (NoStyleSucceeded, with the model and entries
 * as details so that a retry can pick them up) when none succeeded.
 */
export function generationOutcome(
  workflowId: string,
  subjectId: string | undefined,
  modelId: number,
  generations: GenerationResult[],
): PipelineResult {
  const succeeded = generations.filter((g) => g.status === 'DONE').length;
  if (succeeded === 0) {
    throw ApplicationFailure.nonRetryable(
      `No style succeeded for model ${modelId}: ${generations.map((g) => `style ${g.styleId}: ${g.error}`).join('; ')}`,
      'NoStyleSucceeded',
      { modelId, generations },
    );
  }
  return {
    workflowId,
    ...(subjectId ? { subjectId } : {}),
    modelId,
    status: succeeded === generations.length ? 'DONE' : 'PARTIAL',
    generations,
  };
}

/**
 * Generation under a model that is already DONE (`avatar-pipeline generate`, POST
 * /v1/models/{modelId}/generations, and every retry): no training. A retry keeps the styles the
 * retried run has DONE and lists them in its result beside the ones generated again.
 */
export async function avatarGeneration(input: GenerationWorkflowInput): Promise<PipelineResult> {
  const { workflowId } = workflowInfo();
  const kept = input.retry?.kept ?? [];
  const tracker = new PipelineTracker(workflowId, {
    ...(input.subjectId ? { subjectId: input.subjectId } : {}),
    imageCount: 0,
    styles: input.styles,
    stage: 'generating',
    kept,
  });
  try {
    tracker.model(input.modelId);
    const generated = await generateStyles(input.modelId, input.styles, input, tracker);
    const result = generationOutcome(workflowId, input.subjectId, input.modelId, [...kept, ...generated]);
    tracker.stage('done');
    return result;
  } catch (err) {
    if (isCancellation(err)) tracker.cancelled();
    else tracker.failed(err instanceof Error ? err.message : String(err));
    throw err;
  }
}

async function generateStyle(
  modelId: number,
  styleId: number,
  settings: GenerationSettings,
  tracker: PipelineTracker,
): Promise<GenerationResult> {
  try {
    const generated = await executeChild(styleGeneration, {
      workflowId: `${workflowInfo().workflowId}/style-${styleId}`,
      args: [
        {
          modelId,
          styleId,
          gender: settings.gender,
          deadlineMs: settings.generationDeadlineMs,
          polling: settings.polling,
          providerTaskQueue: settings.providerTaskQueue,
          ...(settings.archiveAvatars
            ? {
                archive: {
                  ...(settings.subjectId !== undefined ? { subjectId: settings.subjectId } : {}),
                  pipelineId: workflowInfo().workflowId,
                },
              }
            : {}),
        },
      ],
      staticSummary: `style ${styleId} for model ${modelId}`,
    });
    // The child's own last progress signal may never arrive (it closes first); its result is final.
    tracker.style({
      styleId,
      stage: 'done',
      orderId: generated.orderId,
      providerStatus: 'DONE',
      progress: 100,
      avatarCount: generated.avatars.length,
    });
    return generated;
  } catch (err) {
    if (isCancellation(err)) throw err;
    const cause = err instanceof ChildWorkflowFailure && err.cause ? err.cause : err;
    const message = cause instanceof Error ? cause.message : String(cause);
    const orderId = tracker.snapshot().styles.find((s) => s.styleId === styleId)?.orderId;
    tracker.style({ styleId, stage: 'failed', error: message });
    return {
      styleId,
      ...(orderId !== undefined ? { orderId } : {}),
      status: 'ERROR',
      avatars: [],
      error: message,
    };
  }
}

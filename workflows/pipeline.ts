import {
  ApplicationFailure,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { PipelineWorkflowInput } from '../src/contracts/pipeline-input';
import type { GenerationResult, PipelineResult } from '../src/contracts/pipeline-state';
import { progressQuery, styleProgressSignal } from '../src/contracts/workflow-definitions';
import { uploads, writes, type ProviderRoute } from './activity-proxies';
import { obtainModel } from './obtain-model';
import { announceEnd, completedEvent, endedEvent } from './pipeline-callback';
import { PipelineTracker } from './pipeline-tracker';
import { pollUntilDone } from './polling';
import { styleGeneration } from './style-generation';

/**
 * The avatar pipeline: create a model, upload the selfies, pick the main one, train, then
 * generate every chosen style in parallel and collect the avatars.
 */
export async function avatarPipeline(input: PipelineWorkflowInput): Promise<PipelineResult> {
  const { workflowId } = workflowInfo();
  const tracker = new PipelineTracker(workflowId, input);
  const route: ProviderRoute = { taskQueue: input.providerTaskQueue };
  setHandler(progressQuery, () => tracker.snapshot());
  setHandler(styleProgressSignal, (update) => tracker.style(update));

  try {
    const modelId = await obtainModel(input, route);
    tracker.model(modelId);
    const imageIds = await uploadSelfies(modelId, input, tracker, route);

    tracker.stage('selecting-main-image');
    const mainImageId = imageIds[input.mainImageIndex]!;
    await writes.selectMainImage.executeWithOptions(
      { summary: `select selfie ${input.mainImageIndex + 1} as main image`, ...route },
      [{ modelId, imageId: mainImageId }],
    );

    tracker.stage('training');
    await writes.runOrder.executeWithOptions({ summary: `run training of model ${modelId}`, ...route }, [
      { orderId: modelId },
    ]);
    await pollUntilDone({
      orderId: modelId,
      label: `training of model ${modelId}`,
      deadlineMs: input.trainingDeadlineMs,
      polling: input.polling,
      route,
      onStatus: (status, polls) => tracker.training(status, polls),
    });

    tracker.stage('generating');
    const generations = await Promise.all(
      input.styles.map((styleId) => generateStyle(modelId, styleId, input, tracker)),
    );
    const succeeded = generations.filter((g) => g.status === 'DONE').length;
    if (succeeded === 0) {
      throw ApplicationFailure.nonRetryable(
        `No style succeeded for model ${modelId}: ${generations.map((g) => `style ${g.styleId}: ${g.error}`).join('; ')}`,
        'NoStyleSucceeded',
        { modelId, generations },
      );
    }
    tracker.stage('done');
    const result: PipelineResult = {
      workflowId,
      ...(input.subjectId ? { subjectId: input.subjectId } : {}),
      modelId,
      status: succeeded === generations.length ? 'DONE' : 'PARTIAL',
      generations,
    };
    await announceEnd(input, completedEvent(input, result));
    return result;
  } catch (err) {
    if (isCancellation(err)) tracker.cancelled();
    else tracker.failed(err instanceof Error ? err.message : String(err));
    await announceEnd(input, endedEvent(input, err));
    throw err;
  }
}

/** One at a time, so that after a lost answer the one image the pipeline does not know is the one it uploaded. */
async function uploadSelfies(
  modelId: number,
  input: PipelineWorkflowInput,
  tracker: PipelineTracker,
  route: ProviderRoute,
): Promise<number[]> {
  tracker.stage('uploading-selfies');
  const imageIds: number[] = [];
  for (const [index, image] of input.images.entries()) {
    const { imageId } = await uploads.uploadSelfie.executeWithOptions(
      { summary: `upload selfie ${index + 1}/${input.images.length}`, ...route },
      [{ modelId, gender: input.gender, image, index, knownImageIds: [...imageIds] }],
    );
    imageIds.push(imageId);
    tracker.uploaded(imageIds.length);
  }
  return imageIds;
}

/** A style that fails is reported in the result; only cancellation propagates. */
async function generateStyle(
  modelId: number,
  styleId: number,
  input: PipelineWorkflowInput,
  tracker: PipelineTracker,
): Promise<GenerationResult> {
  try {
    const generated = await executeChild(styleGeneration, {
      workflowId: `${workflowInfo().workflowId}/style-${styleId}`,
      args: [
        {
          modelId,
          styleId,
          gender: input.gender,
          deadlineMs: input.generationDeadlineMs,
          polling: input.polling,
          providerTaskQueue: input.providerTaskQueue,
          ...(input.archiveAvatars
            ? {
                archive: {
                  ...(input.subjectId !== undefined ? { subjectId: input.subjectId } : {}),
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

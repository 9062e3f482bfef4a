import { isCancellation, workflowInfo } from '@temporalio/workflow';
import type { TrainingResult, TrainingWorkflowInput } from '@avatar-pipeline/client/contracts/model-runs';
import { uploads, writes, type ProviderRoute } from './activity-proxies';
import { trainingKind } from '../src/contracts/order-kinds';
import { obtainModel } from './obtain-model';
import type { FinishedOrder } from '../src/contracts/order-durations';
import { learnDurations } from './order-durations';
import { PipelineTracker } from './pipeline-tracker';
import { pollUntilDone, type FinishBounds } from './polling';
import { checkSelfiesInRun } from './selfie-check';
import { recordFace } from './avatar-checks';

/** What training needs from a pipeline or training request. */
export type TrainingSteps = Pick<
  TrainingWorkflowInput,
  | 'images'
  | 'styles'
  | 'gender'
  | 'mainImageIndex'
  | 'trainingDeadlineMs'
  | 'polling'
  | 'checks'
  | 'tenant'
  | 'subjectId'
>;

/** A trained model, and its training's finish for later runs to learn from (learnDurations). */
export interface TrainedModel {
  modelId: number;
  /** Absent when the run's answer already said DONE, so no read bounds the finish. */
  finished?: FinishedOrder;
}

/**
 * The training half of every pipeline: check the selfies, create (or adopt) the model, record the
 * person's face for the avatar checks, upload the selfies, select
 * the main one, run the training and poll it to DONE. Answers the model id and the finish, which
 * the caller records with its next durations call.
 */
export async function trainModel(
  input: TrainingSteps,
  tracker: PipelineTracker,
  route: ProviderRoute,
): Promise<TrainedModel> {
  // However the run was started, a selfie the upload would refuse fails it before the model exists.
  await uploads.checkSelfies.executeWithOptions(
    { summary: `check ${input.images.length} selfies before creating the model`, ...route },
    [{ images: input.images }],
  );
  await checkSelfiesInRun(input.images, input.checks);
  const modelId = await obtainModel(input, route);
  tracker.model(modelId);
  await recordFace(input, modelId);
  const imageIds = await uploadSelfies(modelId, input, tracker, route);

  tracker.stage('selecting-main-image');
  const mainImageId = imageIds[input.mainImageIndex]!;
  await writes.selectMainImage.executeWithOptions(
    { summary: `select selfie ${input.mainImageIndex + 1} as main image`, ...route },
    [{ modelId, imageId: mainImageId }],
  );

  tracker.stage('training');
  // Trainings of as many selfies take alike: their finished runs time this one's status reads.
  const kind = trainingKind(input.images.length);
  const expected = (await learnDurations([], [kind])).get(kind);
  const started = await writes.runOrder.executeWithOptions(
    { summary: `run training of model ${modelId}`, ...route },
    [{ orderId: modelId }],
  );
  let finish: FinishBounds | undefined;
  await pollUntilDone({
    known: started,
    orderId: modelId,
    label: `training of model ${modelId}`,
    deadlineMs: input.trainingDeadlineMs,
    polling: input.polling,
    route,
    onStatus: (status, polls) => tracker.training(status, polls),
    ...(expected ? { expected } : {}),
    onFinished: (bounds) => (finish = bounds),
  });
  if (!finish) return { modelId };
  return { modelId, finished: { kind, orderId: modelId, seenDoneAt: Date.now(), ...finish } };
}

/**
 * Training as a run of its own (`avatar-pipeline train`, POST /v1/models): the model it leaves
 * DONE can generate any styles later, as often as wanted, without training again.
 */
export async function modelTraining(input: TrainingWorkflowInput): Promise<TrainingResult> {
  const { workflowId } = workflowInfo();
  const tracker = new PipelineTracker(workflowId, {
    ...(input.subjectId ? { subjectId: input.subjectId } : {}),
    imageCount: input.images.length,
    styles: [],
  });
  try {
    const { modelId, finished } = await trainModel(input, tracker, { taskQueue: input.providerTaskQueue });
    await learnDurations(finished ? [finished] : [], []);
    tracker.stage('done');
    return {
      workflowId,
      ...(input.subjectId ? { subjectId: input.subjectId } : {}),
      modelId,
      status: 'DONE',
    };
  } catch (err) {
    if (isCancellation(err)) tracker.cancelled();
    else tracker.failed(err instanceof Error ? err.message : String(err));
    throw err;
  }
}

/** One at a time, so that after a lost answer the one image the pipeline does not know is the one it uploaded. */
async function uploadSelfies(
  modelId: number,
  input: TrainingSteps,
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

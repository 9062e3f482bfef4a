import { isCancellation, workflowInfo } from '@temporalio/workflow';
import type { PipelineWorkflowInput } from '@avatar-pipeline/client/contracts/pipeline-input';
import { pollingWithin } from '@avatar-pipeline/client/contracts/polling-bounds';
import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { generateStyles, generationOutcome } from './avatar-generation';
import { trainModel } from './model-training';
import { failureOutcome, outcomeOfResult, reportAwaitingReview, reportToCampaign } from './campaign/report';
import { PipelineTracker } from './pipeline-tracker';
import { reviewGateOf } from './review-gate';
import { RunWebhooks } from './run-webhooks';
import { deleteUploadedSelfies } from './uploaded-selfies';

/**
 * The avatar pipeline: training (create a model, upload the selfies, pick the main one, train),
 * then generation (every chosen style in parallel, collecting the avatars), then, when the start
 * asked for it, review (workflows/review-gate.ts). Each half is also a
 * workflow of its own (modelTraining, avatarGeneration), so a trained model can generate again
 * later without training.
 */
export async function avatarPipeline(started: PipelineWorkflowInput): Promise<PipelineResult> {
  // Held within the bounds it was started under, whoever started it.
  const input = { ...started, polling: pollingWithin(started.polling, started.pollingBounds) };
  const { workflowId } = workflowInfo();
  const tracker = new PipelineTracker(workflowId, {
    ...(input.subjectId ? { subjectId: input.subjectId } : {}),
    ...(input.campaignId ? { campaignId: input.campaignId } : {}),
    imageCount: input.images.length,
    styles: input.styles,
  });
  const webhooks = new RunWebhooks(input);
  // Decisions may come from the start on: one on a style not generated yet is kept for it.
  const gate = reviewGateOf(input.review, input.styles, tracker, webhooks, () =>
    reportAwaitingReview(input.campaignId),
  );
  let trained = false;
  try {
    await webhooks.started(input.styles);
    const training = await trainModel(input, tracker, { taskQueue: input.providerTaskQueue });
    const { modelId } = training;
    trained = true;
    await deleteUploadedSelfies(input);
    await webhooks.trained(modelId);
    const finishedBefore = training.finished ? [training.finished] : [];
    const generations = await generateStyles(
      modelId,
      input.styles,
      input,
      tracker,
      webhooks,
      finishedBefore,
      gate,
    );
    const result = generationOutcome(workflowId, input.subjectId, modelId, generations, gate);
    tracker.stage('done');
    await webhooks.completed(result);
    await reportToCampaign(input.campaignId, outcomeOfResult(result));
    return result;
  } catch (err) {
    if (isCancellation(err)) tracker.cancelled();
    else tracker.failed(err instanceof Error ? err.message : String(err));
    if (!trained) {
      await deleteUploadedSelfies(input);
      await webhooks.trainingFailed(err, tracker.modelId);
    }
    await webhooks.ended(err);
    await reportToCampaign(input.campaignId, failureOutcome(err));
    throw err;
  }
}

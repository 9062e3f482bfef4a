import { isCancellation, workflowInfo } from '@temporalio/workflow';
import type { PipelineWorkflowInput } from '../src/contracts/pipeline-input';
import type { PipelineResult } from '../src/contracts/pipeline-state';
import { generateStyles, generationOutcome } from './avatar-generation';
import { trainModel } from './model-training';
import { failureOutcome, outcomeOfResult, reportToCampaign } from '../src/campaign/workflows/report';
import { announceEnd, completedEvent, endedEvent } from './pipeline-callback';
import { PipelineTracker } from './pipeline-tracker';

/**
 * The avatar pipeline: training (create a model, upload the selfies, pick the main one, train),
 * then generation (every chosen style in parallel, collecting the avatars). Each half is also a
 * workflow of its own (modelTraining, avatarGeneration), so a trained model can generate again
 * later without training.
 */
export async function avatarPipeline(input: PipelineWorkflowInput): Promise<PipelineResult> {
  const { workflowId } = workflowInfo();
  const tracker = new PipelineTracker(workflowId, {
    ...(input.subjectId ? { subjectId: input.subjectId } : {}),
    ...(input.campaignId ? { campaignId: input.campaignId } : {}),
    imageCount: input.images.length,
    styles: input.styles,
  });
  try {
    const modelId = await trainModel(input, tracker, { taskQueue: input.providerTaskQueue });
    const generations = await generateStyles(modelId, input.styles, input, tracker);
    const result = generationOutcome(workflowId, input.subjectId, modelId, generations);
    tracker.stage('done');
    await announceEnd(input, completedEvent(input, result));
    await reportToCampaign(input.campaignId, outcomeOfResult(result));
    return result;
  } catch (err) {
    if (isCancellation(err)) tracker.cancelled();
    else tracker.failed(err instanceof Error ? err.message : String(err));
    await announceEnd(input, endedEvent(input, err));
    await reportToCampaign(input.campaignId, failureOutcome(err));
    throw err;
  }
}

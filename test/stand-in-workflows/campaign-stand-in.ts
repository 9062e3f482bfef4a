/**
 * The campaign workflow with stand-ins for the avatar pipeline, for tests about the campaign
 * itself (continue-as-new, history size, the window across runs) at thousands of subjects. Like
 * the real pipeline, each stand-in reports its end to the campaign (workflows/campaign/report.ts).
 */
import { CancellationScope, isCancellation, sleep, workflowInfo } from '@temporalio/workflow';
import type { PipelineInput } from '@avatar-pipeline/client/contracts/pipeline-input';
import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { failureOutcome, outcomeOfResult, reportToCampaign } from '../../workflows/campaign/report';

export { avatarCampaign } from '../../workflows/campaign/campaign';

function resultOf(input: PipelineInput): PipelineResult {
  const modelId = 1000 + Number(/\d+$/.exec(input.subjectId ?? '')?.[0] ?? 0);
  return {
    workflowId: workflowInfo().workflowId,
    ...(input.subjectId ? { subjectId: input.subjectId } : {}),
    modelId,
    status: 'DONE',
    generations: input.styles.map((styleId, i) => ({
      styleId,
      orderId: modelId * 10 + i,
      status: 'DONE' as const,
      avatars: [{ avatarId: modelId * 100 + i, imageUrl: `https://cdn.example/${modelId}/${styleId}.png` }],
    })),
  };
}

/** Finishes at once. */
export async function standInPipeline(input: PipelineInput): Promise<PipelineResult> {
  const result = resultOf(input);
  await reportToCampaign(input.campaignId, outcomeOfResult(result));
  return result;
}

/**
 * Takes a while (the training deadline, in ms, stands for how long), so runs end with subjects in
 * flight. Cancelled, it reports that to its campaign, as the real pipeline does.
 */
export async function slowStandInPipeline(input: PipelineInput): Promise<PipelineResult> {
  try {
    await sleep(input.trainingDeadlineMs);
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => reportToCampaign(input.campaignId, failureOutcome(err)));
    }
    throw err;
  }
  const result = resultOf(input);
  await reportToCampaign(input.campaignId, outcomeOfResult(result));
  return result;
}

/**
 * The campaign workflow with a stand-in for the avatar pipeline that finishes at once, for tests
 * about the campaign itself (continue-as-new, history size) at thousands of subjects.
 */
import { workflowInfo } from '@temporalio/workflow';
import type { PipelineInput } from '../../src/contracts/pipeline-input';
import type { PipelineResult } from '../../src/contracts/pipeline-state';

export { avatarCampaign } from '../../workflows/campaign';

export async function standInPipeline(input: PipelineInput): Promise<PipelineResult> {
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

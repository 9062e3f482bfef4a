import type {
  PipelineProgress,
  PipelineResult,
  StyleProgress,
} from '@avatar-pipeline/client/contracts/pipeline-state';

/**
 * The progress to show once the result is in: every style as the result has it (done with its
 * avatar count, or failed with its error). The last progress query can lag behind the result,
 * since a style reports its own end just as it closes.
 */
export function settledProgress(
  last: PipelineProgress | undefined,
  result: PipelineResult,
): PipelineProgress {
  const styles: StyleProgress[] = result.generations.map((g) => {
    const before = last?.styles.find((s) => s.styleId === g.styleId);
    const end: StyleProgress['stage'] =
      g.status === 'DONE' ? 'done' : g.status === 'CANCELLED' ? 'cancelled' : 'failed';
    return {
      ...before,
      styleId: g.styleId,
      stage: end,
      ...(g.orderId !== undefined ? { orderId: g.orderId } : {}),
      avatarCount: g.avatars.length,
      ...(g.error ? { error: g.error } : {}),
    };
  });
  return {
    workflowId: result.workflowId,
    ...(result.subjectId ? { subjectId: result.subjectId } : {}),
    uploads: last?.uploads ?? { done: 0, total: 0 },
    training: last?.training ?? { polls: 0 },
    ...(last?.campaignId ? { campaignId: last.campaignId } : {}),
    stage: 'done',
    modelId: result.modelId,
    styles,
  };
}

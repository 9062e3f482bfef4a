import { settledProgress } from '../../../src/cli/settled-progress';
import type { PipelineProgress, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';

describe('settledProgress', () => {
  const result: PipelineResult = {
    workflowId: 'wf-1',
    modelId: 1001,
    status: 'PARTIAL',
    generations: [
      { styleId: 3, orderId: 1002, status: 'DONE', avatars: [{ avatarId: 1, imageUrl: 'http://x/1.png' }] },
      { styleId: 7, orderId: 1003, status: 'ERROR', avatars: [], error: 'style 7 failed' },
    ],
  };

  it('takes every style’s end from the result, even when the last query lagged behind', () => {
    const lagging: PipelineProgress = {
      workflowId: 'wf-1',
      stage: 'generating',
      modelId: 1001,
      uploads: { done: 2, total: 2 },
      training: { providerStatus: 'DONE', progress: 100, polls: 4 },
      styles: [
        { styleId: 3, stage: 'polling', progress: 100, providerStatus: 'DONE', orderId: 1002 },
        { styleId: 7, stage: 'polling', progress: 60, orderId: 1003 },
      ],
    };
    const settled = settledProgress(lagging, result);
    expect(settled.stage).toBe('done');
    expect(settled.uploads).toEqual({ done: 2, total: 2 });
    expect(settled.training.polls).toBe(4);
    expect(settled.styles).toEqual([
      expect.objectContaining({ styleId: 3, stage: 'done', avatarCount: 1, orderId: 1002 }),
      expect.objectContaining({ styleId: 7, stage: 'failed', avatarCount: 0, error: 'style 7 failed' }),
    ]);
  });

  it('works without any earlier progress', () => {
    const settled = settledProgress(undefined, result);
    expect(settled.modelId).toBe(1001);
    expect(settled.styles.map((s) => s.stage)).toEqual(['done', 'failed']);
  });
});

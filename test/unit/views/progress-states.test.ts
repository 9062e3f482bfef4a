import type { PipelineProgress, StyleProgress } from '@avatar-pipeline/client/contracts/pipeline-state';
import { runStateWord, styleView, trainingView } from '@avatar-pipeline/client/views/progress-states';
import { renderFrame } from '../../../src/cli/live-view-frame';

const progress = (over: Partial<PipelineProgress>): PipelineProgress => ({
  workflowId: 'default.avatar-pipeline-7d1f0c9e',
  stage: 'training',
  modelId: 1036,
  uploads: { done: 4, total: 4 },
  training: { providerStatus: 'IN_PROGRESS', progress: 40, polls: 3 },
  styles: [{ styleId: 3, stage: 'pending' }],
  ...over,
});
const style = (over: Partial<StyleProgress>): StyleProgress => ({ styleId: 3, stage: 'pending', ...over });

/** One mapping says what each part of a run is, for the console's bars and the CLI's frame alike. */
describe('what a run part is to someone watching it', () => {
  test('a training cancelled while the provider trained is cancelled, at the progress it had, not done', () => {
    const cancelled = progress({ stage: 'cancelled', styles: [style({ stage: 'cancelled' })] });
    expect(trainingView(cancelled)).toEqual({ state: 'cancelled', fraction: 0.4 });
    const frame = renderFrame(cancelled, { workflowId: cancelled.workflowId, elapsedMs: 1000, barWidth: 10 });
    expect(frame.find((line) => line.includes('training'))).toMatch(/\[████░░░░░░\] cancelled$/);
  });

  test('a training the provider finished stays done when the run later fails or is cancelled', () => {
    const trained = { providerStatus: 'DONE', progress: 100, polls: 9 } as const;
    for (const stage of ['failed', 'cancelled'] as const) {
      expect(trainingView(progress({ stage, training: trained }))).toEqual({ state: 'done', fraction: 1 });
    }
  });

  test('a run under a model trained before has nothing to train; a run not yet training waits', () => {
    const generation = progress({
      stage: 'generating',
      uploads: { done: 0, total: 0 },
      training: { polls: 0 },
    });
    expect(trainingView(generation)).toEqual({ state: 'done', fraction: 1 });
    const cancelledGeneration = { ...generation, stage: 'cancelled' as const };
    expect(trainingView(cancelledGeneration).state).toBe('done');
    const early = progress({ stage: 'uploading-selfies', modelId: 1036, training: { polls: 0 } });
    expect(trainingView(early)).toEqual({ state: 'waiting', fraction: 0 });
  });

  test("a failed style is failed with an empty bar, even at the provider's 100%; a pending one waits with an empty bar", () => {
    expect(styleView(style({ stage: 'failed', progress: 100 }))).toEqual({ state: 'failed', fraction: 0 });
    expect(styleView(style({ stage: 'cancelled', progress: 30 }))).toEqual({
      state: 'cancelled',
      fraction: 0,
    });
    expect(styleView(style({ stage: 'pending' }))).toEqual({ state: 'waiting', fraction: 0 });
    expect(styleView(style({ stage: 'polling', progress: 55 }))).toEqual({ state: 'active', fraction: 0.55 });
    expect(styleView(style({ stage: 'checking' }))).toEqual({ state: 'active', fraction: 1 });
    expect(styleView(style({ stage: 'done' }))).toEqual({ state: 'done', fraction: 1 });
  });

  test('a completed run with a failed style is partial', () => {
    expect(runStateWord('completed', 'PARTIAL')).toBe('partial');
    expect(runStateWord('completed', 'DONE')).toBe('completed');
    expect(runStateWord('failed', undefined)).toBe('failed');
  });
});

import type { PipelineProgress } from '@avatar-pipeline/client/contracts/pipeline-state';
import { progressBar, renderFrame } from '../../../src/cli/live-view-frame';

function progress(overrides: Partial<PipelineProgress> = {}): PipelineProgress {
  return {
    workflowId: 'wf-1',
    stage: 'training',
    modelId: 1001,
    uploads: { done: 4, total: 4 },
    training: { providerStatus: 'IN_PROGRESS', progress: 50, polls: 3 },
    styles: [
      { styleId: 3, stage: 'pending' },
      { styleId: 12, stage: 'pending' },
    ],
    ...overrides,
  };
}

describe('progressBar', () => {
  it('fills in proportion and clamps', () => {
    expect(progressBar(0, 4)).toBe('[░░░░]');
    expect(progressBar(0.5, 4)).toBe('[██░░]');
    expect(progressBar(1, 4)).toBe('[████]');
    expect(progressBar(7, 4)).toBe('[████]');
    expect(progressBar(-1, 4)).toBe('[░░░░]');
    expect(progressBar(Number.NaN, 4)).toBe('[░░░░]');
  });
});

describe('renderFrame', () => {
  it('shows stage, elapsed time, uploads, a training bar and one bar per style', () => {
    const lines = renderFrame(progress(), {
      workflowId: 'wf-1',
      elapsedMs: 75_000,
      barWidth: 10,
      styleNames: new Map([[3, 'Watercolor']]),
    });
    expect(lines[0]).toBe('wf-1  ·  training  ·  1m15s');
    expect(lines.slice(1)).toEqual([
      '  selfies             4/4 uploaded   model 1001',
      '  training            [█████░░░░░] 50% IN_PROGRESS',
      '  style 3 Watercolor  [░░░░░░░░░░] pending',
      '  style 12            [░░░░░░░░░░] pending',
      '  avatars             0 collected, 0/2 styles done',
    ]);
    expect(lines).toHaveLength(6);
  });

  it('counts avatars and shows each style’s own progress, end or error', () => {
    const lines = renderFrame(
      progress({
        stage: 'generating',
        styles: [
          { styleId: 3, stage: 'done', avatarCount: 8 },
          { styleId: 5, stage: 'polling', progress: 25, providerStatus: 'IN_PROGRESS' },
          { styleId: 7, stage: 'failed', error: 'provider said no' },
          { styleId: 12, stage: 'done', avatarCount: 6 },
        ],
      }),
      { workflowId: 'wf-1', elapsedMs: 0, barWidth: 4 },
    );
    expect(lines.slice(2)).toEqual([
      '  training  [████] trained',
      '  style 3   [████] ✓ 8 avatars',
      '  style 5   [█░░░] 25% IN_PROGRESS',
      '  style 7   [░░░░] ✗ failed: provider said no',
      '  style 12  [████] ✓ 6 avatars',
      '  avatars   14 collected, 2/4 styles done',
    ]);
  });

  it('says which order a style ordered again by the avatar checks is on, and how its avatars fared', () => {
    const passed = { passed: true, reasons: [] };
    const failed = { passed: false, reasons: ['shows no face'] };
    const lines = renderFrame(
      progress({
        stage: 'generating',
        styles: [
          {
            styleId: 3,
            stage: 'done',
            avatarCount: 2,
            avatars: [
              { avatarId: 1, check: passed },
              { avatarId: 2, check: passed },
            ],
          },
          { styleId: 5, stage: 'polling', attempt: 2, progress: 50, providerStatus: 'IN_PROGRESS' },
          { styleId: 7, stage: 'checking', attempt: 1 },
          {
            styleId: 12,
            stage: 'done',
            attempt: 2,
            avatarCount: 2,
            avatars: [
              { avatarId: 3, check: passed },
              { avatarId: 4, check: failed },
            ],
          },
        ],
      }),
      { workflowId: 'wf-1', elapsedMs: 0, barWidth: 4 },
    );
    expect(lines.slice(3, 7)).toEqual([
      '  style 3   [████] ✓ 2 avatars, checked',
      '  style 5   [██░░] 50% IN_PROGRESS (order 2)',
      '  style 7   [████] checking avatars',
      '  style 12  [████] ✓ 2 avatars, 1 failed their checks (order 2)',
    ]);
  });

  it('adds the error of a failed pipeline and says when no worker answered yet', () => {
    const failed = renderFrame(progress({ stage: 'failed', error: 'training failed' }), {
      workflowId: 'wf-1',
      elapsedMs: 2_000,
    });
    expect(failed[0]).toContain('failed');
    expect(failed.at(-1)).toBe('  error     training failed');
    expect(renderFrame(undefined, { workflowId: 'wf-1', elapsedMs: 0 })).toEqual([
      'wf-1  ·  starting  ·  0s',
      '  waiting for a worker to pick the pipeline up…',
    ]);
  });
});

import { WORKER_V8_FLAGS, workerV8Flags } from '../../../src/worker/v8-heap-flags';

describe('workerV8Flags', () => {
  it('sets every worker heap flag when Node was given none', () => {
    expect(workerV8Flags(['--enable-source-maps', ''])).toEqual([
      `--heap-growing-percent=${WORKER_V8_FLAGS['heap-growing-percent']}`,
      `--semi-space-growth-factor=${WORKER_V8_FLAGS['semi-space-growth-factor']}`,
      `--max-semi-space-size=${WORKER_V8_FLAGS['max-semi-space-size']}`,
      '--optimize-for-size',
    ]);
  });

  it('leaves a flag the operator gave Node as they set it, in either spelling', () => {
    const flags = workerV8Flags([
      '--max-semi-space-size=16',
      '--heap_growing_percent=50',
      '--optimize-for-size',
    ]);
    expect(flags).toEqual([`--semi-space-growth-factor=${WORKER_V8_FLAGS['semi-space-growth-factor']}`]);
  });

  it('leaves a boolean flag the operator turned off', () => {
    expect(workerV8Flags(['--no-optimize-for-size'])).not.toContain('--optimize-for-size');
    expect(workerV8Flags(['--no_optimize_for_size'])).not.toContain('--optimize-for-size');
  });
});

import { WORKER_V8_FLAGS, workerV8Flags } from '../../../src/worker/v8-heap-flags';

describe('workerV8Flags', () => {
  it('sets every worker heap flag when Node was given none', () => {
    expect(workerV8Flags(['--enable-source-maps', ''])).toEqual(
      Object.entries(WORKER_V8_FLAGS).map(([name, value]) => `--${name}=${value}`),
    );
  });

  it('leaves a flag the operator gave Node as they set it, in either spelling', () => {
    const flags = workerV8Flags(['--max-semi-space-size=16', '--heap_growing_percent=50']);
    expect(flags).toEqual([`--semi-space-growth-factor=${WORKER_V8_FLAGS['semi-space-growth-factor']}`]);
  });
});

import { placementFrom } from '@avatar-pipeline/client/config/run-placement';

describe('placementFrom: the one place run placements are worked out', () => {
  it('puts provider activities on `<task queue>-provider` unless a provider task queue is named', () => {
    // The queue name is a contract with workers deployed apart from the starters: keep it literal here.
    expect(placementFrom({ taskQueue: 'tq' })).toEqual({
      taskQueue: 'tq',
      providerTaskQueue: 'tq-provider',
      archiveAvatars: false,
    });
    expect(placementFrom({ taskQueue: 'tq', providerTaskQueue: 'quota' }).providerTaskQueue).toBe('quota');
    expect(placementFrom({ taskQueue: 'tq', providerTaskQueue: undefined }).providerTaskQueue).toBe(
      'tq-provider',
    );
  });

  it('carries the archive setting', () => {
    expect(placementFrom({ taskQueue: 'tq', archiveAvatars: true }).archiveAvatars).toBe(true);
  });
});

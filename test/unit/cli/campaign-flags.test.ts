import { optionsFromFlags } from '../../../src/cli/commands/campaign';
import { InputError } from '@avatar-pipeline/client/errors';

describe('campaign command flags', () => {
  const base = { manifest: 'people.csv' };

  it('reads the window, priority and fairness weight', () => {
    expect(
      optionsFromFlags({
        ...base,
        maxInFlight: '120',
        subjectsPerRun: '100',
        priority: '5',
        fairnessWeight: '2.5',
      }),
    ).toEqual({ maxInFlight: 120, subjectsPerRun: 100, priorityKey: 5, fairnessWeight: 2.5 });
    expect(optionsFromFlags({ ...base, maxInFlight: 'auto' })).toEqual({ maxInFlight: 'auto' });
    expect(optionsFromFlags(base)).toEqual({});
  });

  it.each([
    ['--fairness-weight', { fairnessWeight: '0' }],
    ['--fairness-weight', { fairnessWeight: 'heavy' }],
    ['--fairness-weight', { fairnessWeight: '1001' }],
    ['--max-in-flight', { maxInFlight: 'lots' }],
    ['--priority', { priority: '9' }],
  ])('refuses a bad %s naming the flag', (flag, flags) => {
    let caught: unknown;
    try {
      optionsFromFlags({ ...base, ...flags });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InputError);
    expect((caught as Error).message).toContain(flag);
  });
});

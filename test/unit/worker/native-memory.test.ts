import { tuneNativeMemory } from '../../../src/worker/native-memory';

function fakeGlibc(malloptAnswer = 1) {
  return { mallopt: jest.fn(() => malloptAnswer), mallocTrim: jest.fn(() => 1) };
}

describe('the worker’s native memory', () => {
  afterEach(() => jest.useRealTimers());

  it('caps the malloc arenas at two and trims them on an interval until stopped', () => {
    jest.useFakeTimers();
    const glibc = fakeGlibc();
    const tuning = tuneNativeMemory(5_000, {}, glibc);
    expect(glibc.mallopt).toHaveBeenCalledWith(-8, 2); // M_ARENA_MAX
    expect(tuning.applied).toBe('arenas 2, free pages trimmed every 5000 ms');
    jest.advanceTimersByTime(15_000);
    expect(glibc.mallocTrim).toHaveBeenCalledTimes(3);
    tuning.stop();
    jest.advanceTimersByTime(15_000);
    expect(glibc.mallocTrim).toHaveBeenCalledTimes(3);
  });

  it('leaves a MALLOC_ARENA_MAX the operator set, and trims nothing at 0', () => {
    jest.useFakeTimers();
    const glibc = fakeGlibc();
    const tuning = tuneNativeMemory(0, { MALLOC_ARENA_MAX: '4' }, glibc);
    expect(glibc.mallopt).not.toHaveBeenCalled();
    expect(tuning.applied).toBe('arenas 4 (MALLOC_ARENA_MAX), no trimming');
    jest.advanceTimersByTime(60_000);
    expect(glibc.mallocTrim).not.toHaveBeenCalled();
  });

  it('says so when glibc refuses the limit, and does nothing without glibc', () => {
    expect(tuneNativeMemory(0, {}, fakeGlibc(0)).applied).toBe(
      'arenas as glibc chooses (mallopt refused), no trimming',
    );
    expect(tuneNativeMemory(5_000, {}, null).applied).toMatch(/left as is/);
  });

  it('calls the real glibc through the FFI where there is one (Linux with glibc)', () => {
    const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
    const tuning = tuneNativeMemory(60_000, {});
    tuning.stop();
    expect(tuning.applied).toBe(
      process.platform === 'linux' && header?.glibcVersionRuntime
        ? 'arenas 2, free pages trimmed every 60000 ms'
        : 'left as is (no glibc, or the FFI did not load)',
    );
  });
});

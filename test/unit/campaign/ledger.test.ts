import { CampaignLedger, MAX_ERROR_LENGTH } from '../../../src/campaign/workflows/ledger';

const T0 = 1_700_000_000_000;

describe('CampaignLedger', () => {
  it('starts subjects in manifest order, counts them by state and records their outcomes', () => {
    const book = new CampaignLedger(4, T0);
    expect([book.takeNext(), book.takeNext()]).toEqual([0, 1]);
    expect(book.counts()).toEqual({ pending: 2, running: 2, done: 0, partial: 0, failed: 0, cancelled: 0 });
    book.finished(0, 'u1', { status: 'DONE', modelId: 11, avatarCount: 8 }, T0 + 1_000);
    book.finished(
      1,
      'u2',
      { status: 'FAILED', error: 'Training of model 12 ended in ERROR: no face', modelId: 12 },
      T0 + 2_000,
    );
    expect(book.counts()).toMatchObject({ pending: 2, running: 0, done: 1, failed: 1 });
    expect(book.outcomes()).toEqual({
      statuses: 'DF..',
      modelIds: [11, 12, 0, 0],
      avatarCounts: [8, 0, 0, 0],
      errors: { '1': 'Training of model 12 ended in ERROR: no face' },
      attempts: {},
    });
    expect(book.failures()).toEqual([
      { subjectId: 'u2', error: 'Training of model 12 ended in ERROR: no face' },
    ]);
    expect(book.hasWork()).toBe(true);
  });

  it('drops erased subjects from the recent failures, also after continue-as-new, keeping their outcome', () => {
    const first = new CampaignLedger(3, T0);
    first.finished(first.takeNext(), 'u1', { status: 'FAILED', error: 'no face' }, T0);
    first.finished(first.takeNext(), 'u2', { status: 'FAILED', error: 'blurred' }, T0);
    const book = new CampaignLedger(3, T0, first.carry());
    expect(book.forgetFailures(new Set([0]))).toEqual(['u1']);
    expect(book.failures()).toEqual([{ subjectId: 'u2', error: 'blurred' }]);
    expect(book.carry().recentFailures.map((f) => f.subjectId)).toEqual(['u2']);
    expect(book.statusOf(0)).toBe('FAILED');
  });

  it('runs queued retries before new subjects and only accepts failed or cancelled ones', () => {
    const book = new CampaignLedger(3, T0);
    book.finished(book.takeNext(), 'u1', { status: 'FAILED', error: 'boom' }, T0);
    book.finished(book.takeNext(), 'u2', { status: 'DONE', modelId: 2, avatarCount: 1 }, T0);
    expect(book.retryable([1, 0, 7])).toEqual({
      accepted: [0],
      refused: [
        'subject #1 is DONE; only failed or cancelled subjects can be retried',
        'subject #7 is not in the manifest',
      ],
    });
    book.queueRetry([0]);
    expect(book.outcomes().errors).toEqual({});
    expect(book.takeNext()).toBe(0);
    expect(book.takeNext()).toBe(2);
    expect(book.hasWork()).toBe(false);
    book.finished(0, 'u1', { status: 'DONE', modelId: 5, avatarCount: 2 }, T0);
    expect(book.outcomes().attempts).toEqual({ '0': 2 });
  });

  it('cancelling cancels every subject not started and starts nothing more; a retry revives them', () => {
    const book = new CampaignLedger(5, T0);
    const running = book.takeNext();
    book.cancelRemaining();
    expect(book.hasWork()).toBe(false);
    expect(book.counts()).toMatchObject({ running: 1, cancelled: 4, pending: 0 });
    book.finished(running, 'u1', { status: 'CANCELLED' }, T0);
    expect(book.retryable().accepted).toEqual([0, 1, 2, 3, 4]);
    book.queueRetry(book.retryable().accepted);
    expect(book.cancelled).toBe(false);
    expect(book.hasWork()).toBe(true);
  });

  it('carries everything through continue-as-new, compactly', () => {
    const book = new CampaignLedger(3, T0);
    book.paused = true;
    book.finished(
      book.takeNext(),
      'u1',
      { status: 'PARTIAL', modelId: 9, avatarCount: 4, error: 'style 19: x' },
      T0 + 10,
    );
    const next = new CampaignLedger(3, T0 + 99, book.carry());
    expect(next.run).toBe(2);
    expect(next.startedAtMs).toBe(T0);
    expect(next.paused).toBe(true);
    expect(next.takeNext()).toBe(1);
    expect(next.outcomes()).toMatchObject({
      statuses: 'P..',
      modelIds: [9, 0, 0],
      errors: { '0': 'style 19: x' },
    });
  });

  it('derives throughput and an estimated finish from recent completions', () => {
    const book = new CampaignLedger(10, T0);
    expect(book.etaMs(T0)).toBeUndefined();
    for (let i = 0; i < 4; i++)
      book.finished(
        book.takeNext(),
        `u${i}`,
        { status: 'DONE', modelId: i + 1, avatarCount: 1 },
        T0 + (i + 1) * 15_000,
      );
    expect(book.throughputPerMinute(T0 + 60_000)).toBe(4);
    expect(book.etaMs(T0 + 60_000)).toBe(90_000);
  });

  it('cuts long provider messages', () => {
    const book = new CampaignLedger(1, T0);
    book.finished(book.takeNext(), 'u1', { status: 'FAILED', error: 'x'.repeat(5_000) }, T0);
    expect(book.outcomes().errors['0']).toHaveLength(MAX_ERROR_LENGTH);
  });
});

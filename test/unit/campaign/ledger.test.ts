import { CampaignLedger, MAX_ERROR_LENGTH } from '../../../workflows/campaign/ledger';

const T0 = 1_700_000_000_000;

describe('CampaignLedger', () => {
  it('starts subjects in manifest order, counts them by state and records their outcomes', () => {
    const ledger = new CampaignLedger(4, T0);
    expect([ledger.takeNext(), ledger.takeNext()]).toEqual([0, 1]);
    expect(ledger.counts()).toEqual({ pending: 2, running: 2, done: 0, partial: 0, failed: 0, cancelled: 0 });
    ledger.finished(0, 'u1', { status: 'DONE', modelId: 11, avatarCount: 8 }, T0 + 1_000);
    ledger.finished(
      1,
      'u2',
      { status: 'FAILED', error: 'Training of model 12 ended in ERROR: no face', modelId: 12 },
      T0 + 2_000,
    );
    expect(ledger.counts()).toMatchObject({ pending: 2, running: 0, done: 1, failed: 1 });
    expect(ledger.outcomes()).toEqual({
      statuses: 'DF..',
      modelIds: [11, 12, 0, 0],
      avatarCounts: [8, 0, 0, 0],
      errors: { '1': 'Training of model 12 ended in ERROR: no face' },
      attempts: {},
    });
    expect(ledger.failures()).toEqual([
      { subjectId: 'u2', error: 'Training of model 12 ended in ERROR: no face' },
    ]);
    expect(ledger.hasWork()).toBe(true);
  });

  it('drops erased subjects from the recent failures, also after continue-as-new, keeping their outcome', () => {
    const first = new CampaignLedger(3, T0);
    first.finished(first.takeNext(), 'u1', { status: 'FAILED', error: 'no face' }, T0);
    first.finished(first.takeNext(), 'u2', { status: 'FAILED', error: 'blurred' }, T0);
    const ledger = new CampaignLedger(3, T0, first.carry());
    expect(ledger.forgetFailures(new Set([0]))).toEqual(['u1']);
    expect(ledger.failures()).toEqual([{ subjectId: 'u2', error: 'blurred' }]);
    expect(ledger.carry().recentFailures.map((f) => f.subjectId)).toEqual(['u2']);
    expect(ledger.statusOf(0)).toBe('FAILED');
  });

  it('runs queued retries before new subjects and only accepts failed or cancelled ones', () => {
    const ledger = new CampaignLedger(3, T0);
    ledger.finished(ledger.takeNext(), 'u1', { status: 'FAILED', error: 'boom' }, T0);
    ledger.finished(ledger.takeNext(), 'u2', { status: 'DONE', modelId: 2, avatarCount: 1 }, T0);
    expect(ledger.retryable([1, 0, 7])).toEqual({
      accepted: [0],
      refused: [
        'subject #1 is DONE; only failed or cancelled subjects can be retried',
        'subject #7 is not in the manifest',
      ],
    });
    ledger.queueRetry([0]);
    expect(ledger.outcomes().errors).toEqual({});
    expect(ledger.takeNext()).toBe(0);
    expect(ledger.takeNext()).toBe(2);
    expect(ledger.hasWork()).toBe(false);
    ledger.finished(0, 'u1', { status: 'DONE', modelId: 5, avatarCount: 2 }, T0);
    expect(ledger.outcomes().attempts).toEqual({ '0': 2 });
  });

  it('cancelling cancels every subject not started and starts nothing more; a retry revives them', () => {
    const ledger = new CampaignLedger(5, T0);
    const running = ledger.takeNext();
    ledger.cancelRemaining();
    expect(ledger.hasWork()).toBe(false);
    expect(ledger.counts()).toMatchObject({ running: 1, cancelled: 4, pending: 0 });
    ledger.finished(running, 'u1', { status: 'CANCELLED' }, T0);
    expect(ledger.retryable().accepted).toEqual([0, 1, 2, 3, 4]);
    ledger.queueRetry(ledger.retryable().accepted);
    expect(ledger.cancelled).toBe(false);
    expect(ledger.hasWork()).toBe(true);
  });

  it('carries everything through continue-as-new, compactly', () => {
    const ledger = new CampaignLedger(3, T0);
    ledger.paused = true;
    ledger.finished(
      ledger.takeNext(),
      'u1',
      { status: 'PARTIAL', modelId: 9, avatarCount: 4, error: 'style 19: x' },
      T0 + 10,
    );
    const next = new CampaignLedger(3, T0 + 99, ledger.carry());
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
    const ledger = new CampaignLedger(10, T0);
    expect(ledger.etaMs(T0)).toBeUndefined();
    for (let i = 0; i < 4; i++)
      ledger.finished(
        ledger.takeNext(),
        `u${i}`,
        { status: 'DONE', modelId: i + 1, avatarCount: 1 },
        T0 + (i + 1) * 15_000,
      );
    expect(ledger.throughputPerMinute(T0 + 60_000)).toBe(4);
    expect(ledger.etaMs(T0 + 60_000)).toBe(90_000);
  });

  it('cuts long provider messages', () => {
    const ledger = new CampaignLedger(1, T0);
    ledger.finished(ledger.takeNext(), 'u1', { status: 'FAILED', error: 'x'.repeat(5_000) }, T0);
    expect(ledger.outcomes().errors['0']).toHaveLength(MAX_ERROR_LENGTH);
  });
});

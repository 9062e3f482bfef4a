import {
  answersBetween,
  DEFAULT_WINDOW_TUNING,
  initialWindow,
  nextWindow,
} from '../../../workflows/campaign/window-controller';
import type {
  WindowSample,
  WindowState,
  WindowTuning,
} from '@avatar-pipeline/client/contracts/campaign/window-state';

const tuning: WindowTuning = { ...DEFAULT_WINDOW_TUNING, cap: 200, initial: 10 };

/** A calm sample with a full window: the provider keeps up. */
function calm(state: WindowState, extra: Partial<WindowSample> = {}): WindowSample {
  return {
    backlogCount: 0,
    backlogAgeMs: 0,
    requests: 100,
    rateLimited: 0,
    errors: 0,
    completions: 3,
    inFlight: state.size,
    ...extra,
  };
}

/** A window that shrank on an old backlog in the previous sample. */
function afterOldBacklog(size: number): WindowState {
  return { ...initialWindow(tuning), size, lastBacklogCount: 100, lastOverHigh: true };
}

function run(state: WindowState, samples: number, sample: (s: WindowState) => WindowSample): WindowState {
  let s = state;
  for (let i = 0; i < samples; i++) s = nextWindow(s, sample(s), tuning);
  return s;
}

describe('the auto in-flight window', () => {
  it('starts at the initial size, within the cap', () => {
    expect(initialWindow(tuning).size).toBe(10);
    expect(initialWindow({ ...tuning, cap: 4 }).size).toBe(4);
  });

  it('grows while the provider keeps up and the window is full', () => {
    const start = initialWindow(tuning);
    const next = nextWindow(start, calm(start), tuning);
    expect(next.size).toBe(15);
    expect(next.reason).toBe('growing');
    expect(run(start, 5, (s) => calm(s)).size).toBeGreaterThan(50);
  });

  it('grows by a tenth once it has seen congestion, when it cannot estimate the size needed', () => {
    const congested: WindowState = { ...initialWindow(tuning), size: 100, congested: true };
    const next = nextWindow(congested, calm(congested), tuning);
    expect(next.size).toBe(110);
  });

  it("grows towards the Little's-law size (quota ÷ requests/s a subject makes), at most ×2 a sample", () => {
    // 10 subjects served 2 requests/s over 10 s: 0.2 a subject, so 100 of them fill a quota of 20.
    const start = initialWindow(tuning);
    const quick = nextWindow(start, calm(start, { requests: 20, elapsedMs: 10_000, quotaRps: 20 }), tuning);
    expect(quick.size).toBe(20);
    expect(quick.detail).toContain('about 100 in flight fill the quota');
    // Near the size needed (90 in flight served 19/s), slow start still grows by half.
    const near = { ...start, size: 90 };
    const next = nextWindow(near, calm(near, { requests: 190, elapsedMs: 10_000, quotaRps: 20 }), tuning);
    expect(next.size).toBe(135);
  });

  it('reports the accepted requests/s and the quota as numbers once a sample measured both', () => {
    const start = initialWindow(tuning);
    // 25 answers over 10 s, 5 of them 429: 2 accepted a second, of a quota of 20.
    const measured = nextWindow(
      start,
      calm(start, { requests: 25, rateLimited: 5, elapsedMs: 10_000, quotaRps: 20 }),
      tuning,
    );
    expect(measured).toMatchObject({ providerRps: 2, quotaRps: 20 });
    // Without the time since the previous reading, or without a quota, there is nothing to report.
    expect(nextWindow(start, calm(start, { quotaRps: 20 }), tuning)).not.toHaveProperty('providerRps');
    expect(nextWindow(start, calm(start, { elapsedMs: 10_000 }), tuning)).not.toHaveProperty('quotaRps');
  });

  it('does not grow when the window is not full (the window is not the limit)', () => {
    const start = { ...initialWindow(tuning), size: 40 };
    const next = nextWindow(start, calm(start, { inFlight: 12 }), tuning);
    expect(next.size).toBe(40);
    expect(next.reason).toBe('not-full');
  });

  it('holds while the quota is in use and the backlog is young', () => {
    const state = { ...initialWindow(tuning), size: 80 };
    const next = nextWindow(state, calm(state, { backlogCount: 12, backlogAgeMs: 2_500 }), tuning);
    expect(next.size).toBe(80);
    expect(next.reason).toBe('holding');
  });

  it('holds on a few 429s after a sample without any (a passing burst), shrinks when they persist or are many', () => {
    const state = { ...initialWindow(tuning), size: 100 };
    const burst = nextWindow(state, calm(state, { rateLimited: 2 }), tuning);
    expect(burst).toMatchObject({ size: 100, reason: 'rate-limited' });
    expect(burst.detail).toContain('2 of 100');
    expect(burst.detail).toContain('waiting a sample');
    const persisting = nextWindow(burst, calm(burst, { rateLimited: 2 }), tuning);
    expect(persisting).toMatchObject({ size: 70, reason: 'rate-limited', congested: true });
    const many = nextWindow(state, calm(state, { rateLimited: 30 }), tuning);
    expect(many.size).toBe(50);
    // After congestion, without a quota to estimate from, growth is by a tenth.
    expect(nextWindow(persisting, calm(persisting), tuning).size).toBe(77);
  });

  it('does not shrink again on 429s while an earlier shrink has not taken effect (more in flight than allowed)', () => {
    const shrunk: WindowState = { ...initialWindow(tuning), size: 70, congested: true };
    const held = nextWindow(shrunk, calm(shrunk, { rateLimited: 30, inFlight: 100 }), tuning);
    expect(held).toMatchObject({ size: 70, reason: 'rate-limited' });
    expect(held.detail).toContain('100 in flight above the window');
    // Once in flight is within the window, 429s shrink it again.
    expect(nextWindow(shrunk, calm(shrunk, { rateLimited: 30, inFlight: 70 }), tuning).size).toBe(35);
  });

  it('shrinks when the provider task queue backlog stays old, and holds while it drains', () => {
    const state = { ...initialWindow(tuning), size: 100, lastBacklogAgeMs: 3_000, lastBacklogCount: 40 };
    // The first old backlog after a calm sample may be a burst of starts passing: one sample's grace.
    const burst = nextWindow(state, calm(state, { backlogCount: 300, backlogAgeMs: 9_000 }), tuning);
    expect(burst.size).toBe(100);
    expect(burst.reason).toBe('holding');
    expect(burst.detail).toContain('waiting a sample');
    const deep = nextWindow(burst, calm(burst, { backlogCount: 320, backlogAgeMs: 9_000 }), tuning);
    expect(deep.size).toBe(85);
    expect(deep.reason).toBe('backlog');
    const draining = nextWindow(deep, calm(deep, { backlogCount: 150, backlogAgeMs: 6_000 }), tuning);
    expect(draining.size).toBe(85);
    expect(draining.reason).toBe('holding');
    const stuck = nextWindow(draining, calm(draining, { backlogCount: 200, backlogAgeMs: 6_500 }), tuning);
    expect(stuck.size).toBe(72);
  });

  it('shrinks by the excess of demand over the quota when it knows the quota', () => {
    // Served 20/s (the quota) while the backlog grew by 10/s: demand 30/s, so ×2/3, within ×0.7…×0.9.
    const state = afterOldBacklog(100);
    const next = nextWindow(
      state,
      calm(state, {
        requests: 200,
        elapsedMs: 10_000,
        quotaRps: 20,
        backlogCount: 200,
        backlogAgeMs: 12_000,
      }),
      tuning,
    );
    expect(next.size).toBe(70);
    expect(next.reason).toBe('backlog');
    expect(next.congested).toBe(true);
  });

  it('reads a burst that drains fast as a short wait: its count over the quota, not its head age', () => {
    const state = { ...initialWindow(tuning), size: 100, lastOverHigh: true, lastBacklogCount: 0 };
    const next = nextWindow(
      state,
      calm(state, { requests: 150, elapsedMs: 10_000, quotaRps: 20, backlogCount: 10, backlogAgeMs: 9_000 }),
      tuning,
    );
    expect(next.reason).toBe('growing');
  });

  it('does not shrink further while more subjects are in flight than the window allows', () => {
    const state = afterOldBacklog(60);
    const next = nextWindow(
      state,
      calm(state, { inFlight: 90, backlogCount: 400, backlogAgeMs: 15_000 }),
      tuning,
    );
    expect(next.size).toBe(60);
    expect(next.reason).toBe('backlog');
    expect(next.detail).toContain('90 in flight above the window');
  });

  it('holds while the workers fall behind (workflow tasks wait), and shrinks when they fall far behind', () => {
    // Quota left and no provider backlog would grow the window; waiting workflow tasks say the
    // workers, not the provider, are the bound.
    const full: WindowState = { ...initialWindow(tuning), size: 100, congested: true };
    const quotaLeft = { requests: 50, elapsedMs: 10_000, quotaRps: 20 };
    expect(nextWindow(full, calm(full, quotaLeft), tuning).size).toBeGreaterThan(100);
    const behind = nextWindow(full, calm(full, { ...quotaLeft, workerBacklogMs: 3_000 }), tuning);
    expect(behind).toMatchObject({ size: 100, reason: 'workers-busy' });
    expect(behind.detail).toContain('workflow tasks wait 3.0 s');
    const farBehind = nextWindow(full, calm(full, { ...quotaLeft, workerBacklogMs: 9_000 }), tuning);
    expect(farBehind).toMatchObject({ size: 90, reason: 'workers-busy' });
    // A short wait is normal work, not a bound.
    expect(nextWindow(full, calm(full, { ...quotaLeft, workerBacklogMs: 500 }), tuning).reason).toBe(
      'growing',
    );
  });

  it("opens to every subject left once they are no more than the Little's-law size", () => {
    // Over the last subject's duration (100 s), 100 in flight asked 20/s, the quota: about 100 fill it.
    const averages = { demandRps: 20, inFlight: 100, completionRps: 1, coveredMs: 300_000 };
    const state: WindowState = { ...initialWindow(tuning), size: 100, congested: true, averages };
    const quotaFull = {
      requests: 200,
      elapsedMs: 10_000,
      quotaRps: 20,
      backlogCount: 30,
      backlogAgeMs: 1_500,
    };
    const many = nextWindow(state, calm(state, { ...quotaFull, waiting: 150 }), tuning);
    expect(many).toMatchObject({ size: 100, reason: 'holding' });
    const last = nextWindow(state, calm(state, { ...quotaFull, waiting: 80 }), tuning);
    expect(last).toMatchObject({ size: 180, reason: 'last-subjects' });
    expect(last.detail).toContain('the 80 subject(s) left to start');
    // Even over an old backlog: they have to be served anyway, and none waits behind them.
    const old = nextWindow(
      { ...afterOldBacklog(100), averages },
      calm(state, { ...quotaFull, backlogCount: 300, backlogAgeMs: 15_000, waiting: 60 }),
      tuning,
    );
    expect(old.reason).toBe('last-subjects');
    // Not while the workers fall behind, nor beyond the cap.
    const busy = nextWindow(
      state,
      calm(state, { ...quotaFull, waiting: 80, workerBacklogMs: 3_000 }),
      tuning,
    );
    expect(busy.reason).toBe('workers-busy');
    const capped = nextWindow(state, calm(state, { ...quotaFull, waiting: 95, inFlight: 150 }), tuning);
    expect(capped).toMatchObject({ size: 200, reason: 'at-cap' });
  });

  it('shrinks on provider errors above a tenth of the answers', () => {
    const state = { ...initialWindow(tuning), size: 50 };
    expect(nextWindow(state, calm(state, { errors: 5 }), tuning).size).toBeGreaterThan(50);
    const next = nextWindow(state, calm(state, { errors: 20 }), tuning);
    expect(next.size).toBe(40);
    expect(next.reason).toBe('provider-errors');
  });

  it('never exceeds the cap and says so', () => {
    const end = run(initialWindow(tuning), 30, (s) => calm(s));
    expect(end.size).toBe(200);
    expect(end.reason).toBe('at-cap');
    expect(end.detail).toContain('cap 200');
  });

  it('never exceeds what the workers can hold', () => {
    const end = run(initialWindow(tuning), 30, (s) => calm(s, { workerCapacity: 120 }));
    expect(end.size).toBe(120);
    expect(end.reason).toBe('worker-capacity');
  });

  it('never falls below the floor', () => {
    const end = run(initialWindow(tuning), 30, (s) => calm(s, { rateLimited: 50 }));
    expect(end.size).toBe(tuning.floor);
  });

  /**
   * A rate-limited provider queue: each subject in flight asks 0.2 requests/s, the quota serves
   * 20/s (so 100 in flight fill it); demand above the quota waits in the backlog, whose age grows
   * with the excess and drains at the quota. Sampled every 5 s, with the quota and the answers
   * served when `knowsQuota`, else with the backlog alone.
   */
  function queueModel(from: WindowState, samples: number, knowsQuota = true) {
    let state = from;
    let backlog = 0;
    const sizes: number[] = [];
    const waits: number[] = [];
    for (let i = 0; i < samples; i++) {
      const demand = state.size * 0.2 * 5;
      const served = Math.min(backlog + demand, 20 * 5);
      backlog = backlog + demand - served;
      const queue = { backlogCount: backlog, backlogAgeMs: (backlog / 20) * 1000 };
      state = nextWindow(
        state,
        calm(state, knowsQuota ? { ...queue, requests: served, elapsedMs: 5_000, quotaRps: 20 } : queue),
        tuning,
      );
      sizes.push(state.size);
      waits.push(backlog / 20);
    }
    return { sizes, waits };
  }

  it('settles near the size that keeps a small backlog (a queue model of a rate-limited provider)', () => {
    const { sizes } = queueModel(initialWindow(tuning), 60, false);
    const tail = sizes.slice(-20);
    expect(Math.min(...tail)).toBeGreaterThanOrEqual(90);
    expect(Math.max(...tail)).toBeLessThanOrEqual(140);
  });

  it('recovers quickly after congestion when it knows the quota: back to the size needed in a few samples', () => {
    // Cut to 20 by a congestion; 100 in flight fill the quota.
    const cut: WindowState = { ...initialWindow(tuning), size: 20, congested: true };
    const { sizes } = queueModel(cut, 40);
    expect(sizes.findIndex((size) => size >= 90)).toBeLessThanOrEqual(4);
    // …and holds there without swinging into deep backlogs.
    const tail = queueModel(cut, 60).sizes.slice(-30);
    expect(Math.min(...tail)).toBeGreaterThanOrEqual(85);
    expect(Math.max(...tail)).toBeLessThanOrEqual(140);
    expect(Math.max(...queueModel(cut, 60).waits.slice(-30))).toBeLessThanOrEqual(10);
  });

  it('is deterministic: the same samples give the same windows', () => {
    const samples = (s: WindowState, i: number) => calm(s, { backlogAgeMs: (i * 1_700) % 7_000 });
    const a: number[] = [];
    const b: number[] = [];
    for (const out of [a, b]) {
      let s = initialWindow(tuning);
      for (let i = 0; i < 40; i++) out.push((s = nextWindow(s, samples(s, i), tuning)).size);
    }
    expect(a).toEqual(b);
  });
});

describe('provider answers between two readings', () => {
  const reading = (tallyId: string, requests: number, rateLimited: number, errors: number) => ({
    backlogCount: 0,
    backlogAgeMs: 0,
    addRate: 0,
    dispatchRate: 0,
    tallyId,
    requests,
    rateLimited,
    errors,
  });

  it('counts the answers since the previous reading of the same process', () => {
    expect(answersBetween(reading('a', 10, 1, 0), reading('a', 25, 3, 1))).toEqual({
      requests: 15,
      rateLimited: 2,
      errors: 1,
    });
  });

  it('counts none across processes or without a previous reading', () => {
    const none = { requests: 0, rateLimited: 0, errors: 0 };
    expect(answersBetween(undefined, reading('a', 10, 1, 0))).toEqual(none);
    expect(answersBetween(reading('a', 10, 1, 0), reading('b', 3, 0, 0))).toEqual(none);
  });
});

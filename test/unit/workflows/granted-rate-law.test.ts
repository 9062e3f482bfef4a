import {
  DEFAULT_GRANTED_RATE_TUNING as TUNING,
  floorOf,
  initialGrantedRate,
  nextGrantedRate,
  sampleOfReports,
  type AnswersSample,
} from '../../../workflows/granted-rate-law';
import type { GrantedRateState, ProviderAnswers } from '../../../src/contracts/granted-rate-state';

const T0 = 1_700_000_000_000;
const sample = (part: Partial<AnswersSample>): AnswersSample => ({
  accepted: 20,
  rateLimited: 0,
  retryAfterMs: 0,
  elapsedMs: 1_000,
  ceiling: 20,
  ...part,
});

describe('the granted rate control law', () => {
  it('cuts fast on 429s: to a share of what the provider accepted, remembering it as the knee', () => {
    const { state } = nextGrantedRate(initialGrantedRate(20), sample({ accepted: 12, rateLimited: 8 }), T0);
    expect(state.rate).toBeCloseTo(12 * TUNING.decrease);
    expect(state.knee).toBeCloseTo(12);
    expect(state.cutAt).toBe(T0);
    expect(state.rateLimitedTotal).toBe(8);
  });

  it('cuts at most to half the rate in one sample (little demand under-reads the grant)', () => {
    const { state } = nextGrantedRate(initialGrantedRate(20), sample({ accepted: 1, rateLimited: 1 }), T0);
    expect(state.rate).toBeCloseTo(10 * TUNING.decrease);
  });

  it('does not cut again for 429s within the cooldown, and honours Retry-After before increasing', () => {
    const cut = nextGrantedRate(
      initialGrantedRate(20),
      sample({ accepted: 10, rateLimited: 10, retryAfterMs: 3_000 }),
      T0,
    ).state;
    const again = nextGrantedRate(cut, sample({ accepted: 8, rateLimited: 2 }), T0 + 1_000);
    expect(again.state.rate).toBe(cut.rate);
    expect(again.reason).toMatch(/before the last cut/);
    const held = nextGrantedRate(again.state, sample({ accepted: 8 }), T0 + 2_500);
    expect(held.state.rate).toBe(cut.rate);
    expect(held.reason).toMatch(/retry after/);
    const rising = nextGrantedRate(held.state, sample({ accepted: 8 }), T0 + 3_500);
    expect(rising.state.rate).toBeGreaterThan(cut.rate);
  });

  it('recovers fast below the knee, then probes slowly near it, faster the longer it sees no 429', () => {
    let state: GrantedRateState = { ...initialGrantedRate(20), rate: 8, knee: 12, cutAt: T0 };
    state = nextGrantedRate(state, sample({ accepted: 8 }), T0 + 3_000).state;
    expect(state.rate).toBeCloseTo(8 + TUNING.fastShare * 20);
    for (let s = 4; s < 10; s++)
      state = nextGrantedRate(state, sample({ accepted: Math.ceil(state.rate) }), T0 + s * 1_000).state;
    expect(state.rate).toBeGreaterThanOrEqual(12 * TUNING.kneeBand);
    const first = state.rate;
    state = nextGrantedRate(state, sample({ accepted: Math.ceil(state.rate) }), T0 + 10_000).state;
    const slowStep = state.rate - first;
    expect(slowStep).toBeLessThanOrEqual(TUNING.probeShare * 20 * 2 + 1e-9);
    for (let s = 11; s < 40; s++)
      state = nextGrantedRate(state, sample({ accepted: Math.ceil(state.rate) }), T0 + s * 1_000).state;
    expect(state.rate).toBe(20);
    expect(state.knee).toBeUndefined();
  });

  it('does not raise a rate that is not in use', () => {
    const state: GrantedRateState = { ...initialGrantedRate(20), rate: 10, knee: 12 };
    const idle = nextGrantedRate(state, sample({ accepted: 5 }), T0);
    expect(idle.state.rate).toBe(10);
    expect(idle.reason).toMatch(/in use/);
    expect(nextGrantedRate(state, sample({ accepted: 9 }), T0).state.rate).toBeGreaterThan(10);
  });

  it('stays within [floor, ceiling], and follows a lower ceiling', () => {
    let state = initialGrantedRate(20);
    for (let s = 0; s < 40; s++) {
      state = nextGrantedRate(state, sample({ accepted: 0, rateLimited: 5 }), T0 + s * 10_000).state;
    }
    expect(state.rate).toBeCloseTo(floorOf(20, TUNING));
    state = nextGrantedRate({ ...state, rate: 20 }, sample({ ceiling: 10 }), T0 + 500_000).state;
    expect(state.rate).toBe(10);
  });

  /**
   * The law in a closed loop with a provider that grants `available(t)` requests/s to a client that
   * always has work: the share of 429s, and the accepted rate against what was available.
   */
  function closedLoop(available: (s: number) => number, seconds: number) {
    let state = initialGrantedRate(20);
    const perSecond: { accepted: number; limited: number; available: number }[] = [];
    for (let s = 0; s < seconds; s++) {
      const offered = state.rate;
      const accepted = Math.min(offered, available(s));
      const limited = Math.max(0, offered - available(s));
      perSecond.push({ accepted, limited, available: available(s) });
      // The decision acts a second later (the reports' delay).
      state = nextGrantedRate(
        state,
        sample({
          accepted: Math.round(accepted),
          rateLimited: Math.ceil(limited - 1e-9),
          retryAfterMs: limited > 0 ? 1_000 : 0,
        }),
        T0 + (s + 1) * 1_000,
      ).state;
    }
    const share = (from: number, to: number) => {
      const part = perSecond.slice(from, to);
      const accepted = part.reduce((sum, p) => sum + p.accepted, 0);
      const limited = part.reduce((sum, p) => sum + p.limited, 0);
      const available = part.reduce((sum, p) => sum + p.available, 0);
      return { limitedShare: limited / (accepted + limited), acceptedShare: accepted / available };
    };
    return share;
  }

  it('shares a key politely: another client takes 8 of 20 requests/s for four minutes', () => {
    const share = closedLoop((s) => (s >= 120 && s < 360 ? 12 : 20), 480);
    expect(share(0, 480).limitedShare).toBeLessThanOrEqual(0.02);
    expect(share(140, 360).acceptedShare).toBeGreaterThanOrEqual(0.85);
    expect(share(360, 420).acceptedShare).toBeGreaterThanOrEqual(0.9);
  });

  it('follows a quota halved for good', () => {
    const share = closedLoop((s) => (s >= 180 ? 10 : 20), 420);
    expect(share(0, 420).limitedShare).toBeLessThanOrEqual(0.02);
    expect(share(200, 420).acceptedShare).toBeGreaterThanOrEqual(0.85);
  });
});

describe("a sample of the provider workers' reports", () => {
  const report = (workerId: string, part: Partial<ProviderAnswers> = {}): ProviderAnswers => ({
    workerId,
    windowMs: 1_000,
    accepted: 4,
    rateLimited: 0,
    retryAfterMs: 0,
    ceiling: 10,
    ...part,
  });

  it("covers one worker's queued-up reports end to end, so a backlog does not inflate the accepted rate", () => {
    // Three seconds of one worker at 4 accepted/s, delivered together behind a slow workflow task.
    const sample = sampleOfReports([report('a'), report('a'), report('a')], 10);
    expect(sample).toMatchObject({ accepted: 12, elapsedMs: 3_000 });
    // At a rate of 6/s, 4 accepted/s is less than the share in use the law asks before it rises.
    const state: GrantedRateState = { ...initialGrantedRate(10), rate: 6 };
    const decision = nextGrantedRate(state, sample, T0);
    expect(decision.state.rate).toBe(6);
    expect(decision.reason).toMatch(/^holding: 4\.00 of 6\.00/);
  });

  it('adds workers up over the same time, and takes the longest Retry-After and the latest ceiling', () => {
    const sample = sampleOfReports(
      [
        report('a', { rateLimited: 1, retryAfterMs: 2_000 }),
        report('b', { windowMs: 900, retryAfterMs: 0 }),
        report('b', { windowMs: 300, rateLimited: 2, retryAfterMs: 5_000, ceiling: 12 }),
      ],
      10,
    );
    expect(sample).toEqual({
      accepted: 12,
      rateLimited: 3,
      retryAfterMs: 5_000,
      elapsedMs: 1_200,
      ceiling: 12,
    });
  });

  it('keeps the ceiling it has when no report came', () => {
    expect(sampleOfReports([], 10)).toEqual({
      accepted: 0,
      rateLimited: 0,
      retryAfterMs: 0,
      elapsedMs: 0,
      ceiling: 10,
    });
  });
});

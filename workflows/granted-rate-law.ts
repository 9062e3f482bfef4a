/**
 * The control law of the provider's granted rate: pure and deterministic (no clock, no I/O), so the
 * controller workflow (granted-rate.ts) runs it and replays it.
 *
 * Why: PROVIDER_MAX_RPS is what the key may use at most, not what the provider grants at the
 * moment. Another client of the same key (the app's interactive calls, a staging deployment) or a
 * quota lowered without notice leaves less, and sending at the ceiling then turns into 429s for
 * everybody on the key. The provider's answers say what it grants: the rate follows them.
 *
 * Each sample (the provider workers' reports over about a second) moves the rate once:
 *   1. 429s, and the last cut is older than `cooldownMs` (429s of requests sent before a cut took
 *      effect say nothing new): cut to `decrease` × the rate the provider accepted in the sample
 *      (not below half the current rate: a sample with little demand under-reads the grant), and
 *      remember that accepted rate as the knee. No increase before the longest Retry-After.
 *   2. 429s within the cooldown: hold.
 *   3. a Retry-After still running: hold.
 *   4. less than `usedShare` of the rate in use (the provider was offered fewer requests): hold. A
 *      rate nobody uses is no evidence that the provider would grant it, and a rate raised that way
 *      turns the next burst of demand into 429s;
 *   5. otherwise increase, additively per second of the sample: fast (`fastShare` of the ceiling per
 *      second) up to `kneeBand` × the knee, then a slow probe (`probeShare` of the ceiling per
 *      second) that doubles every `probeDoublingMs` it goes on without a 429: near the knee the
 *      provider is probed gently; once it is clearly past it (the other client went away) the
 *      rate climbs back as fast as below it.
 * The rate stays within [floor, ceiling]; at the ceiling the knee is forgotten.
 */
import type { GrantedRateState, ProviderAnswers } from '../src/contracts/granted-rate-state';

export interface GrantedRateTuning {
  /** Cut to this share of the accepted rate on a 429. */
  decrease: number;
  /** The lowest rate, as a share of the ceiling (at least 0.1 requests/s). */
  floorShare: number;
  /** Increase per second below the knee, as a share of the ceiling. */
  fastShare: number;
  /** Increase per second near the knee at first, as a share of the ceiling; doubles every probeDoublingMs. */
  probeShare: number;
  probeDoublingMs: number;
  /** The fast increase stops at this share of the knee. */
  kneeBand: number;
  /** 429s within this time after a cut do not cut again. */
  cooldownMs: number;
  /** A sample's increase counts at most this long (a long silence is no evidence of more quota). */
  maxStepMs: number;
  /** The rate rises only while at least this share of it is in use. */
  usedShare: number;
}

export const DEFAULT_GRANTED_RATE_TUNING: GrantedRateTuning = {
  decrease: 0.85,
  floorShare: 0.02,
  fastShare: 0.05,
  probeShare: 0.005,
  probeDoublingMs: 5_000,
  kneeBand: 0.95,
  cooldownMs: 2_000,
  maxStepMs: 2_000,
  usedShare: 0.8,
};

/** The provider workers' answers over one sample, summed. */
export interface AnswersSample {
  accepted: number;
  rateLimited: number;
  /** The longest Retry-After among the 429s, ms. */
  retryAfterMs: number;
  /** How long the answers were gathered over, ms. */
  elapsedMs: number;
  /** The ceiling the latest report states (PROVIDER_MAX_RPS). */
  ceiling: number;
}

/**
 * Sums the reports that reached the controller since its last sample. Each worker's reports cover
 * consecutive windows of its own clock, so the time a sample covers is the longest sum of one
 * worker's windows. Not the longest single window: on a loaded machine a worker's reports queue up
 * behind a slow workflow task, and three one-second reports read as one second would triple the
 * accepted rate, which the law takes as room to rise while the provider refuses requests.
 */
export function sampleOfReports(reports: readonly ProviderAnswers[], ceiling: number): AnswersSample {
  const covered = new Map<string, number>();
  for (const report of reports) {
    covered.set(report.workerId, (covered.get(report.workerId) ?? 0) + report.windowMs);
  }
  return {
    accepted: reports.reduce((sum, a) => sum + a.accepted, 0),
    rateLimited: reports.reduce((sum, a) => sum + a.rateLimited, 0),
    retryAfterMs: Math.max(0, ...reports.map((a) => a.retryAfterMs)),
    elapsedMs: Math.max(0, ...covered.values()),
    // The latest report's: a worker restarted with a new PROVIDER_MAX_RPS moves the ceiling.
    ceiling: reports[reports.length - 1]?.ceiling ?? ceiling,
  };
}

export interface GrantedRateDecision {
  state: GrantedRateState;
  reason: string;
}

export function initialGrantedRate(ceiling: number): GrantedRateState {
  return { rate: ceiling, ceiling, rateLimitedTotal: 0, acceptedTotal: 0 };
}

export function floorOf(ceiling: number, tuning: GrantedRateTuning): number {
  return Math.max(0.1, ceiling * tuning.floorShare);
}

export function nextGrantedRate(
  previous: GrantedRateState,
  sample: AnswersSample,
  now: number,
  tuning: GrantedRateTuning = DEFAULT_GRANTED_RATE_TUNING,
): GrantedRateDecision {
  const ceiling = sample.ceiling;
  const floor = floorOf(ceiling, tuning);
  const state: GrantedRateState = {
    ...previous,
    ceiling,
    rate: clamp(previous.rate, floor, ceiling),
    rateLimitedTotal: previous.rateLimitedTotal + sample.rateLimited,
    acceptedTotal: previous.acceptedTotal + sample.accepted,
  };
  const seconds = Math.max(sample.elapsedMs, 1) / 1000;
  const acceptedRps = sample.accepted / seconds;
  const summary = `${sample.accepted} accepted, ${sample.rateLimited} rate limited in ${seconds.toFixed(1)} s`;

  if (sample.rateLimited > 0) {
    const holdUntil = Math.max(state.holdUntil ?? 0, now + sample.retryAfterMs);
    if (state.cutAt !== undefined && now - state.cutAt < tuning.cooldownMs) {
      return {
        state: { ...state, holdUntil },
        reason: `holding: 429s sent before the last cut (${summary})`,
      };
    }
    const knee = Math.max(Math.min(state.rate, acceptedRps), state.rate / 2);
    const rate = clamp(knee * tuning.decrease, floor, ceiling);
    const { probingSince: _probing, ...rest } = state;
    return {
      state: { ...rest, rate, knee, cutAt: now, holdUntil },
      reason: `cut: the provider refused requests at ${acceptedRps.toFixed(2)} accepted/s (${summary})`,
    };
  }
  if (state.holdUntil !== undefined && now < state.holdUntil) {
    return {
      state,
      reason: `holding: the provider asked to retry after ${new Date(state.holdUntil).toISOString()}`,
    };
  }

  if (acceptedRps < tuning.usedShare * state.rate) {
    return {
      state,
      reason: `holding: ${acceptedRps.toFixed(2)} of ${state.rate.toFixed(2)} requests/s in use (${summary})`,
    };
  }
  const stepS = Math.min(seconds, tuning.maxStepMs / 1000);
  const band = state.knee !== undefined ? state.knee * tuning.kneeBand : ceiling;
  const fast = tuning.fastShare * ceiling;
  if (state.rate < band) {
    const rate = Math.min(band, state.rate + fast * stepS, ceiling);
    return {
      state: settle({ ...state, rate }, ceiling),
      reason: `recovering towards ${band.toFixed(2)}/s (${summary})`,
    };
  }
  const probingSince = state.probingSince ?? now;
  const doublings = Math.max(0, now - probingSince) / tuning.probeDoublingMs;
  const step = Math.min(fast, tuning.probeShare * ceiling * 2 ** doublings);
  const rate = Math.min(ceiling, state.rate + step * stepS);
  return {
    state: settle({ ...state, rate, probingSince }, ceiling),
    reason: `probing at +${step.toFixed(2)}/s per second (${summary})`,
  };
}

/** At the ceiling nothing is left to probe for: the knee and the probe's age go. */
function settle(state: GrantedRateState, ceiling: number): GrantedRateState {
  if (state.rate < ceiling) return state;
  const { knee: _knee, probingSince: _probing, ...rest } = state;
  return { ...rest, rate: ceiling };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

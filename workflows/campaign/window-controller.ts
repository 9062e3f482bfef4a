/**
 * How many subjects a campaign keeps in flight when `--max-in-flight auto`: a pure, deterministic
 * controller (no clock, no I/O, no Node built-ins), so the campaign workflow runs it and replays it.
 *
 * Why a controller: to fill a quota of R requests/s with subjects that make K requests over T
 * seconds, about R × T / K subjects must be in flight (Little's law). T is the provider's speed
 * and changes; nobody should have to compute it. The provider task queue tells when the quota is
 * full: its activities are rate limited by the server (PROVIDER_MAX_RPS), so demand above the
 * quota becomes a backlog. The controller keeps that backlog small but present: an empty queue
 * means quota left unused, a deep one means every request (interactive ones and other campaigns'
 * included) waits longer for no extra throughput.
 *
 * The backlog's wait is the smaller of its head's age and its count over the quota (the seconds of
 * quota work queued): a burst of starts makes the head old while the queue drains fast, a stale
 * count says nothing about the head. The Little's-law size is R ÷ the requests/s one subject
 * demands: demand (served plus the backlog's growth) over the subjects in flight whose requests
 * are not waiting in the backlog, both averaged over about one subject's duration, so the bursts
 * at a subject's start and end and the quiet training between even out.
 *
 * A campaign is finite: the subjects it holds back start only as others end, so its last subject
 * ends at least one subject's duration after it starts. Once the subjects still waiting to start
 * are no more than the Little's-law size, starting them all adds at most one subject's duration of
 * quota work to the queue, and the campaign ends when the quota has served it instead of a
 * subject's duration after the last one could start.
 *
 * Each sample moves the window once, first rule that applies:
 *   1. 429 answers from the provider: shrink ×0.7 (×0.5 when more than 5% of answers were 429)
 *      when they persist (429s in the previous sample too) or exceed 5% (the real quota is below
 *      PROVIDER_MAX_RPS); a few after a sample without any are a passing burst of dispatches the
 *      activity's retries absorb: hold. Hold too while more subjects are in flight than the window
 *      allows (an earlier shrink has not taken effect yet);
 *   2. provider errors (5xx, network) above 10% of answers: shrink ×0.8;
 *   3. the subjects waiting to start are no more than the Little's-law size, and the workers keep
 *      up (workflow tasks wait under `workerBusyMs`): open the window to all of them (`last-subjects`);
 *   4. wait over `highBacklogMs`: hold while more subjects are in flight than the window allows
 *      (none start until they end, a smaller window changes nothing yet), while the backlog
 *      drains (its count fell since the previous sample), or when it is the first such sample
 *      after a calm one (a burst of starts the window just allowed passes within a sample when
 *      demand fits the quota); otherwise shrink by the
 *      demand's excess over the quota (×quota ÷ (served + the backlog's growth per second),
 *      within ×0.7…×0.9; ×0.85 without a quota) and mark congestion. A wait over four times
 *      `highBacklogMs` gets neither the draining hold nor the grace;
 *   5. workers busy (the campaign's own workflow tasks wait longer than `workerBusyMs` before a
 *      worker picks them up: the workers, not the provider, are the bound): hold, and shrink ×0.9
 *      past four times that — more subjects would only make every workflow task wait longer;
 *   6. window not full (fewer in flight than it allows: manifest ending, paused): hold;
 *   7. wait under `lowBacklogMs`: grow towards the Little's-law size plus 10% (a slight excess
 *      keeps a backlog, so the quota never idles), at most ×2 a sample before the first congestion
 *      and ×1.5 after it, at least ×1.5 before it and +5% (at least one) after it. Without a quota
 *      or answers to estimate from: ×1.5 before the first congestion, +10% after;
 *   8. otherwise hold: the quota is in use and requests wait little.
 * The result is clamped to [floor, min(cap, what the workers can hold)].
 */

import type {
  ProviderQueueReading,
  WindowReason,
  WindowSample,
  WindowState,
  WindowTuning,
} from '@avatar-pipeline/client/contracts/campaign/window-state';

/** Answers between two readings; none when another process (or a restarted one) counted them. */
export function answersBetween(
  previous: ProviderQueueReading | undefined,
  current: ProviderQueueReading,
): { requests: number; rateLimited: number; errors: number } {
  if (!previous || previous.tallyId !== current.tallyId) return { requests: 0, rateLimited: 0, errors: 0 };
  return {
    requests: Math.max(0, current.requests - previous.requests),
    rateLimited: Math.max(0, current.rateLimited - previous.rateLimited),
    errors: Math.max(0, current.errors - previous.errors),
  };
}

export const DEFAULT_WINDOW_TUNING: WindowTuning = {
  cap: 1000,
  floor: 2,
  initial: 10,
  lowBacklogMs: 1_000,
  highBacklogMs: 5_000,
  workerBusyMs: 2_000,
};

export function initialWindow(tuning: WindowTuning = DEFAULT_WINDOW_TUNING): WindowState {
  const size = clamp(tuning.initial, tuning.floor, tuning.cap);
  return {
    size,
    reason: 'starting',
    detail: `starting at ${size} (cap ${tuning.cap})`,
    lastBacklogAgeMs: 0,
    lastBacklogCount: 0,
    lastOverHigh: false,
    congested: false,
  };
}

/** The window after one sample. */
export function nextWindow(
  state: WindowState,
  sample: WindowSample,
  tuning: WindowTuning = DEFAULT_WINDOW_TUNING,
): WindowState {
  const { size } = state;
  const age = Math.max(0, sample.backlogAgeMs);
  const count = Math.max(0, sample.backlogCount);
  const quota = sample.quotaRps && sample.quotaRps > 0 ? sample.quotaRps : undefined;
  const elapsedS = sample.elapsedMs && sample.elapsedMs > 0 ? sample.elapsedMs / 1000 : undefined;
  const wait = quota ? Math.min(age, (count / quota) * 1000) : age;
  // Requests/s the provider served: this worker's accepted answers, or the server's dispatch rate
  // when higher (several workers share the queue).
  const answered = elapsedS ? Math.max(0, sample.requests - sample.rateLimited) / elapsedS : 0;
  const served = Math.max(answered, sample.dispatchRate ?? 0);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const backlog = `backlog ${count} task(s), oldest ${seconds(age)}${quota ? `, ${seconds((count / quota) * 1000)} of quota` : ''}`;
  const rate = quota && elapsedS ? `; ${served.toFixed(1)} of ${quota} requests/s served` : '';
  const overHigh = wait > tuning.highBacklogMs;
  const lastCount = state.lastBacklogCount ?? 0;
  const averages = elapsedS
    ? average(state.averages, {
        demandRps: served + (count - lastCount) / elapsedS,
        // Subjects whose request waits in the backlog demand nothing meanwhile: count the others.
        inFlight: Math.max(0, sample.inFlight - count),
        completionRps: sample.completions / elapsedS,
        elapsedMs: elapsedS * 1000,
      })
    : state.averages;
  // Little's law: subjects in flight ÷ requests/s a subject demands × the quota.
  const needed =
    quota && averages && averages.demandRps > 0 && averages.inFlight > 0
      ? (quota * averages.inFlight) / averages.demandRps
      : undefined;
  const decide = (target: number, reason: WindowReason, detail: string, congested = state.congested) =>
    bounded(
      {
        size: target,
        reason,
        detail,
        lastBacklogAgeMs: age,
        lastBacklogCount: count,
        lastOverHigh: overHigh,
        lastRateLimited: sample.rateLimited > 0,
        congested,
        ...(averages ? { averages } : {}),
        ...(quota && elapsedS ? { providerRps: Math.round(served * 100) / 100, quotaRps: quota } : {}),
      },
      sample,
      tuning,
    );

  // A shrink already decided has not taken effect while more are in flight than it allows (none
  // start until they end): shrinking again on 429s or backlog would only stop starts for longer,
  // not lower demand now.
  const shrinkPending =
    sample.inFlight > size
      ? `${sample.inFlight} in flight above the window: none start until they end`
      : undefined;

  const workerWait = Math.max(0, sample.workerBacklogMs ?? 0);
  if (sample.rateLimited > 0) {
    const share = sample.requests > 0 ? sample.rateLimited / sample.requests : 1;
    const answered = `${sample.rateLimited} of ${sample.requests} provider answers were 429`;
    if (shrinkPending) return decide(size, 'rate-limited', `${answered}; ${shrinkPending}`, true);
    if (share <= 0.05 && !state.lastRateLimited)
      return decide(size, 'rate-limited', `${answered}, none before: waiting a sample for it to pass`);
    return decide(Math.floor(size * (share > 0.05 ? 0.5 : 0.7)), 'rate-limited', answered, true);
  }
  if (sample.requests > 0 && sample.errors > 0.1 * sample.requests) {
    return decide(
      Math.floor(size * 0.8),
      'provider-errors',
      `${sample.errors} of ${sample.requests} provider answers were errors`,
      true,
    );
  }
  const waiting = Math.max(0, sample.waiting ?? 0);
  if (
    needed !== undefined &&
    waiting > 0 &&
    waiting <= needed &&
    sample.inFlight + waiting > size &&
    workerWait <= tuning.workerBusyMs
  ) {
    return decide(
      sample.inFlight + waiting,
      'last-subjects',
      `the ${waiting} subject(s) left to start fit the quota (about ${Math.round(needed)} in flight fill it): starting them all; ${backlog}${rate}`,
    );
  }
  if (overHigh) {
    const severe = wait > 4 * tuning.highBacklogMs;
    if (shrinkPending) return decide(size, 'backlog', `${backlog}; ${shrinkPending}${rate}`);
    if (!severe && count < lastCount) return decide(size, 'holding', `${backlog}, draining${rate}`);
    if (!severe && !state.lastOverHigh)
      return decide(size, 'holding', `${backlog}, new: waiting a sample for it to pass${rate}`);
    // Demand is what was served plus what the backlog grew by; the window shrinks by its excess.
    const growth = elapsedS ? Math.max(0, count - lastCount) / elapsedS : 0;
    const factor = quota && elapsedS && served > 0 ? bound(quota / (served + growth), 0.7, 0.9) : 0.85;
    return decide(
      Math.floor(size * factor),
      'backlog',
      `${backlog} (over ${seconds(tuning.highBacklogMs)}, not draining)${rate}`,
      true,
    );
  }
  if (workerWait > tuning.workerBusyMs) {
    const behind = `workflow tasks wait ${seconds(workerWait)} for a worker`;
    return workerWait > 4 * tuning.workerBusyMs
      ? decide(Math.floor(size * 0.9), 'workers-busy', `${behind}: fewer subjects; ${backlog}${rate}`)
      : decide(size, 'workers-busy', `${behind}: holding; ${backlog}${rate}`);
  }
  if (sample.inFlight < size * 0.9) {
    return decide(size, 'not-full', `${sample.inFlight} in flight of ${size} allowed; ${backlog}`);
  }
  if (wait < tuning.lowBacklogMs) {
    const ended = `${sample.completions} subject(s) ended`;
    if (needed !== undefined) {
      const target = needed * 1.1;
      const factor = state.congested ? bound(target / size, 1.05, 1.5) : bound(target / size, 1.5, 2);
      const grown = Math.max(size + 1, Math.round(size * factor));
      return decide(
        grown,
        'growing',
        `provider keeps up: ${backlog}${rate}; about ${Math.round(needed)} in flight fill the quota; ${ended}`,
      );
    }
    const grown = state.congested ? size + Math.max(1, Math.round(size * 0.1)) : Math.ceil(size * 1.5);
    return decide(grown, 'growing', `provider keeps up: ${backlog}; ${ended}`);
  }
  return decide(size, 'holding', `quota in use: ${backlog}${rate}`);
}

/** Clamps to [floor, min(cap, worker capacity)] and says so when a bound decided the size. */
function bounded(state: WindowState, sample: WindowSample, tuning: WindowTuning): WindowState {
  const capacity = sample.workerCapacity ?? Number.POSITIVE_INFINITY;
  const ceiling = Math.max(tuning.floor, Math.min(tuning.cap, capacity));
  const size = clamp(state.size, tuning.floor, ceiling);
  if (size < state.size && (state.reason === 'growing' || state.reason === 'last-subjects')) {
    return capacity < tuning.cap
      ? {
          ...state,
          size,
          reason: 'worker-capacity',
          detail: `workers hold ${capacity} subjects; ${state.detail}`,
        }
      : { ...state, size, reason: 'at-cap', detail: `cap ${tuning.cap} reached; ${state.detail}` };
  }
  return { ...state, size };
}

/** Moves the averages by one sample, weighted by its share of about one subject's duration. */
function average(
  previous: WindowState['averages'],
  sample: { demandRps: number; inFlight: number; completionRps: number; elapsedMs: number },
): NonNullable<WindowState['averages']> {
  const { elapsedMs, ...now } = sample;
  if (!previous) return { ...now, coveredMs: elapsedMs };
  const subjectMs =
    previous.completionRps > 0
      ? (previous.inFlight / previous.completionRps) * 1000
      : previous.coveredMs + elapsedMs;
  const weight = Math.min(1, elapsedMs / Math.max(subjectMs, elapsedMs));
  const mix = (a: number, b: number) => a + (b - a) * weight;
  return {
    demandRps: mix(previous.demandRps, now.demandRps),
    inFlight: mix(previous.inFlight, now.inFlight),
    completionRps: mix(previous.completionRps, now.completionRps),
    coveredMs: previous.coveredMs + elapsedMs,
  };
}

function bound(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, Math.round(value)));
}

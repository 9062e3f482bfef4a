/**
 * How many subjects a campaign keeps in flight when `--max-in-flight auto`: a pure, deterministic
 * controller (no clock, no I/O, no Node built-ins), so the campaign workflow runs it and replays it.
 *
 * Why a controller: to fill a quota of R requests/s with subjects that make K requests over T
 * seconds, about R × T / K subjects must be in flight (Little's law). T is the provider's speed
 * and changes; nobody should have to compute it. The provider task queue tells when the quota is
 * full: its activities are rate limited by the server (PROVIDER_MAX_RPS), so demand above the
 * quota becomes a backlog whose head waits (schedule-to-start latency). The controller keeps that
 * backlog small but present: an empty queue means quota left unused, a deep one means every
 * request (interactive ones and other campaigns' included) waits longer for no extra throughput.
 *
 * Each sample moves the window once, first rule that applies:
 *   1. 429 answers from the provider (the real quota is below PROVIDER_MAX_RPS): shrink ×0.7
 *      (×0.5 when more than 5% of answers were 429);
 *   2. provider errors (5xx, network) above 10% of answers: shrink ×0.8;
 *   3. backlog older than `highBacklogMs` and not draining: shrink ×0.85;
 *   4. window not full (fewer in flight than it allows: manifest ending, paused): hold;
 *   5. backlog younger than `lowBacklogMs`: grow, ×1.5 until the first congestion (slow start),
 *      then +5% (at least one) per sample;
 *   6. otherwise hold: the quota is in use and requests wait little.
 * The result is clamped to [floor, min(cap, what the workers can hold)].
 */

/** One reading, as the activity returns it (plain numbers: it goes into history). */
export interface ProviderQueueReading {
  backlogCount: number;
  backlogAgeMs: number;
  /** Tasks per second added to and dispatched from the queue (server averages over ~30 s). */
  addRate: number;
  dispatchRate: number;
  /** Which process counted the answers below: totals from different processes are not comparable. */
  tallyId: string;
  requests: number;
  rateLimited: number;
  errors: number;
}

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

/** What the campaign observed since the previous sample. */
export interface WindowSample {
  /** Provider-activity tasks waiting in the provider task queue. */
  backlogCount: number;
  /** Age of the oldest waiting provider-activity task: the schedule-to-start latency of the queue's head. */
  backlogAgeMs: number;
  /** Provider answers since the previous sample, and how many of them were 429 or errors (5xx, network). */
  requests: number;
  rateLimited: number;
  errors: number;
  /** Subjects that ended since the previous sample. */
  completions: number;
  /** Subjects in flight when sampled. */
  inFlight: number;
  /** Subjects the workers can hold at once without replaying (their workflow cache: one open workflow per subject), when known. */
  workerCapacity?: number;
}

export interface WindowTuning {
  /** Upper bound: `--max-in-flight N` with auto, or the default cap. */
  cap: number;
  /** Lower bound, so the campaign keeps moving and keeps producing signals. */
  floor: number;
  /** Starting size. */
  initial: number;
  /** Backlog age under which the provider keeps up (grow). */
  lowBacklogMs: number;
  /** Backlog age over which requests wait too long (shrink unless already draining). */
  highBacklogMs: number;
}

export const DEFAULT_WINDOW_TUNING: WindowTuning = {
  cap: 1000,
  floor: 2,
  initial: 10,
  lowBacklogMs: 1_000,
  highBacklogMs: 5_000,
};

export type WindowReason =
  | 'starting'
  | 'growing'
  | 'holding'
  | 'not-full'
  | 'backlog'
  | 'rate-limited'
  | 'provider-errors'
  | 'at-cap'
  | 'worker-capacity';

/** The window and why it has that size; travels through continue-as-new. */
export interface WindowState {
  size: number;
  reason: WindowReason;
  /** One line for people: the figures behind the reason. */
  detail: string;
  /** Backlog age of the previous sample, for the trend. */
  lastBacklogAgeMs: number;
  /** False until the first congestion: growth is multiplicative until then. */
  congested: boolean;
}

export function initialWindow(tuning: WindowTuning = DEFAULT_WINDOW_TUNING): WindowState {
  const size = clamp(tuning.initial, tuning.floor, tuning.cap);
  return {
    size,
    reason: 'starting',
    detail: `starting at ${size} (cap ${tuning.cap})`,
    lastBacklogAgeMs: 0,
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
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const backlog = `backlog ${sample.backlogCount} task(s), oldest ${seconds(age)}`;
  const decide = (target: number, reason: WindowReason, detail: string, congested = state.congested) =>
    bounded({ size: target, reason, detail, lastBacklogAgeMs: age, congested }, sample, tuning);

  if (sample.rateLimited > 0) {
    const share = sample.requests > 0 ? sample.rateLimited / sample.requests : 1;
    return decide(
      Math.floor(size * (share > 0.05 ? 0.5 : 0.7)),
      'rate-limited',
      `${sample.rateLimited} of ${sample.requests} provider answers were 429`,
      true,
    );
  }
  if (sample.requests > 0 && sample.errors > 0.1 * sample.requests) {
    return decide(
      Math.floor(size * 0.8),
      'provider-errors',
      `${sample.errors} of ${sample.requests} provider answers were errors`,
      true,
    );
  }
  if (age > tuning.highBacklogMs) {
    // A backlog already draining fast (the window shrank or a burst is passing) needs no further cut.
    if (age < 0.8 * state.lastBacklogAgeMs) return decide(size, 'holding', `${backlog}, draining`);
    return decide(
      Math.floor(size * 0.85),
      'backlog',
      `${backlog} (over ${seconds(tuning.highBacklogMs)})`,
      true,
    );
  }
  if (sample.inFlight < size * 0.9) {
    return decide(size, 'not-full', `${sample.inFlight} in flight of ${size} allowed; ${backlog}`);
  }
  if (age < tuning.lowBacklogMs) {
    const grown = state.congested ? size + Math.max(1, Math.round(size * 0.05)) : Math.ceil(size * 1.5);
    return decide(grown, 'growing', `provider keeps up: ${backlog}; ${sample.completions} subject(s) ended`);
  }
  return decide(size, 'holding', `quota in use: ${backlog}`);
}

/** Clamps to [floor, min(cap, worker capacity)] and says so when a bound decided the size. */
function bounded(state: WindowState, sample: WindowSample, tuning: WindowTuning): WindowState {
  const capacity = sample.workerCapacity ?? Number.POSITIVE_INFINITY;
  const ceiling = Math.max(tuning.floor, Math.min(tuning.cap, capacity));
  const size = clamp(state.size, tuning.floor, ceiling);
  if (size < state.size && state.reason === 'growing') {
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

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, Math.round(value)));
}

import type { ExpectedDuration, FinishedOrder } from '../contracts/order-durations';

/** The expectation follows the runs of late: this many of the newest finished ones. */
export const RECENT_RUNS = 20;
/** Fewer finished runs than this teach nothing yet: the poll schedule stays as it is without them. */
export const MIN_RUNS = 3;
/** The expected window reaches at least this share of the typical duration either side of it. */
const MIN_WINDOW_SHARE = 0.05;

export type FinishedRun = Pick<FinishedOrder, 'afterMs' | 'byMs' | 'seenDoneAt'>;

/**
 * What the newest finished runs of one kind lead to expect. Each run's duration is known to lie
 * between the read that last saw it unfinished and the one that saw it DONE; its midpoint stands
 * for it. The typical duration is the median of those, and the window around it is as wide as the
 * larger of: MIN_WINDOW_SHARE of it, three median absolute deviations (how much runs differ), and
 * the median half-width of the runs' intervals (how well they were pinned down). Medians, so one
 * run that took far longer or shorter (a provider hiccup) moves neither the figure nor the window.
 */
export function estimateDuration(finished: readonly FinishedRun[]): ExpectedDuration | undefined {
  const recent = [...finished].sort((a, b) => a.seenDoneAt - b.seenDoneAt).slice(-RECENT_RUNS);
  if (recent.length < MIN_RUNS) return undefined;
  const durations = recent.map((run) => (run.afterMs + run.byMs) / 2);
  const typical = median(durations);
  const deviation = median(durations.map((d) => Math.abs(d - typical)));
  const halfWidth = median(recent.map((run) => (run.byMs - run.afterMs) / 2));
  const reach = Math.max(MIN_WINDOW_SHARE * typical, 3 * deviation, halfWidth);
  return {
    typicalMs: Math.round(typical),
    earliestMs: Math.round(Math.max(0, typical - reach)),
    latestMs: Math.round(typical + reach),
    runs: recent.length,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

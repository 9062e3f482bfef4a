/**
 * The realistic ratios of bench/campaign.ts and the bounds its figures are judged against.
 *
 * Ratios: training 90 s, generation 20 s, a quota of R requests/s, the product's default polling.
 * When a run at full scale does not fit the time available, every duration is multiplied by one
 * time-scale factor s (training, generation, polling intervals, the controller's backlog
 * thresholds and sampling interval) and every rate divided by it (the quota: R / s requests per
 * second of wall time), so the ratios, the request counts and the shape of the load stay those of
 * the full-scale run; makespans are printed in scaled seconds and in full-scale seconds (÷ s).
 */
import { pollingOptionsSchema, type PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';
import { DEFAULT_STYLES } from '../src/simulator';

export interface Scale {
  subjects: number;
  styles: number[];
  /** Full-scale figures. */
  trainingS: number;
  generationS: number;
  rps: number;
  /** Multiplies every duration (1 = real time); rates are divided by it. */
  timeScale: number;
}

/**
 * The first `count` style ids of the simulator's catalog, the styles a campaign of the bench asks
 * for: an id outside the catalog is an order the simulator refuses, so every subject would fail.
 */
export function catalogStyles(count: number): number[] {
  if (!Number.isInteger(count) || count < 1 || count > DEFAULT_STYLES.length)
    throw new Error(
      `--styles must be a whole number from 1 to ${DEFAULT_STYLES.length} (the simulator's catalog)`,
    );
  return DEFAULT_STYLES.slice(0, count).map((style) => style.id);
}

/** Wall-clock figures of a scale. */
export function scaled(scale: Scale): {
  trainingMs: number;
  generationMs: number;
  rps: number;
  polling: PollingOptions;
} {
  const s = scale.timeScale;
  const polling = pollingOptionsSchema.parse({});
  return {
    trainingMs: Math.round(scale.trainingS * 1000 * s),
    generationMs: Math.round(scale.generationS * 1000 * s),
    rps: scale.rps / s,
    polling: {
      initialIntervalMs: Math.round(polling.initialIntervalMs * s),
      minIntervalMs: Math.max(1, Math.round(polling.minIntervalMs * s)),
      maxIntervalMs: Math.round(polling.maxIntervalMs * s),
      backoffCoefficient: polling.backoffCoefficient,
    },
  };
}

/**
 * Requests a subject needs at the least, as the issue counts them: create the model, upload its
 * one selfie, select it, run it, one status call; per style create, run, one status call and two
 * avatar pages (the page with the avatars, then the empty page that ends the walk: the page size
 * is not stated).
 *
 * Polling a model's generation orders by its order list can go below this: one list call that
 * finds every style DONE replaces the per-style status calls, so an oracle that knew every
 * duration would make 5 + 4 per style + 1 requests (14 for 2 styles). A real poller cannot: it
 * needs one read to learn each order's rate (the pipeline makes 2 for the training and a status
 * plus a list call for all styles, 16 for 2 styles). The bench keeps the count, the
 * figure its targets are stated against; the request ratio it prints is against that count.
 */
export function minimalRequestsPerSubject(styles: number): number {
  return 5 + styles * 5;
}

/** One subject's provider time: training + generation, in full-scale seconds. */
export function subjectSeconds(scale: Scale): number {
  return scale.trainingS + scale.generationS;
}

/** The middle of a run, as shares of its makespan: without its first and last tenth. */
export const MIDDLE_PART = { from: 0.1, to: 0.9 } as const;

/**
 * The steady part of a run, as shares of its makespan: after the warm-up, before the tail. The
 * warm-up lasts one subject's provider time (training + generation), until the first moment a
 * subject can have finished: before it only start-up work exists (4 requests per subject, then a
 * training's wait), so a campaign of fewer than R × training / 4 subjects leaves the quota idle
 * there whatever its scheduler does (that idle time, with the tail's, is the ramp of the makespan
 * bound). The tail is the last tenth of the run, where the last generations run with nothing left
 * to send. The middle 10–90% of the run, warm-up included, is printed beside it.
 */
export function steadyPart(makespanS: number, subjectS: number): { from: number; to: number } {
  const to = MIDDLE_PART.to;
  return { from: makespanS > 0 ? Math.min(subjectS / makespanS, to) : to, to };
}

export interface Bounds {
  /** max(N × minimal requests / R, one subject's duration), in full-scale seconds. */
  quotaBoundS: number;
  /** One subject's provider time: training + generation. */
  subjectS: number;
  /** What an ideal scheduler needs beyond quotaBoundS (see idealSchedule), in full-scale seconds. */
  rampS: number;
  /** quotaBoundS + rampS. */
  targetBaseS: number;
  /** The ideal scheduler's accepted rate over the steady part of its own run (see steadyPart), as a share of R. */
  idealSteadyShare: number;
  /**
   * The ideal scheduler's accepted rate over the middle 10–90% of its own run, as a share of R: what
   * that measure gives where the only idle quota is the unavoidable ramp.
   */
  idealMiddleShare: number;
}

export function bounds(scale: Scale): Bounds {
  const minimal = minimalRequestsPerSubject(scale.styles.length);
  const subjectS = subjectSeconds(scale);
  const quotaBoundS = Math.max((scale.subjects * minimal) / scale.rps, subjectS);
  const ideal = idealSchedule(scale);
  const share = (part: { from: number; to: number }) => {
    const from = part.from * ideal.makespanS;
    const to = part.to * ideal.makespanS;
    const served = ideal.servedAtS.filter((at) => at > from && at <= to).length;
    return to > from ? served / (to - from) / scale.rps : 0;
  };
  return {
    quotaBoundS,
    subjectS,
    rampS: Math.max(0, ideal.makespanS - quotaBoundS),
    targetBaseS: ideal.makespanS,
    idealSteadyShare: share(steadyPart(ideal.makespanS, subjectS)),
    idealMiddleShare: share(MIDDLE_PART),
  };
}

/**
 * The ramp: the makespan of an ideal scheduler minus the quota bound. The ideal scheduler knows
 * every duration (so it makes only the minimal requests, each the moment it becomes possible),
 * has no window, and serves R requests a second from whatever is ready, the requests with the most
 * waiting still ahead of them first (critical path first). The quota still idles at the start (until trainings end there is only start-up work:
 * 4 requests per subject) and at the end (the last generations run with nothing left to send).
 */
export function idealSchedule(scale: Scale): { makespanS: number; servedAtS: number[] } {
  const { subjects, rps, trainingS, generationS } = scale;
  const styles = scale.styles.length;
  // A ready request: when it becomes possible, its subject's stage, what follows it. Earlier stages
  // go first (critical path first: they have the most waiting still ahead of them), then the
  // earliest subject (one subject's start-up requests in a row, so its training starts at once).
  interface Ready {
    at: number;
    stage: number;
    subject: number;
    next: () => void;
  }
  const heap = new ReadyHeap<Ready>((a, b) =>
    a.stage !== b.stage ? a.stage - b.stage : a.subject - b.subject || a.at - b.at,
  );
  const waiting: Ready[] = [];
  let now = 0;
  let end = 0;
  const later = (at: number, stage: number, subject: number, next: () => void) =>
    waiting.push({ at, stage, subject, next });
  const chain = (at: number, stage: number, subject: number, count: number, then: (t: number) => void) => {
    const step = (k: number, t: number) =>
      later(t, stage, subject, () => (k + 1 < count ? step(k + 1, now) : then(now)));
    step(0, at);
  };
  for (let subject = 0; subject < subjects; subject++) {
    // create, upload, select, run; training; one status; per style: create, run; generation; one status, two pages.
    chain(0, 0, subject, 4, (ran) =>
      chain(ran + trainingS, 1, subject, 1, (trained) => {
        for (let s = 0; s < styles; s++)
          chain(trained, 2, subject, 2, (genRan) =>
            chain(genRan + generationS, 3, subject, 3, (done) => (end = Math.max(end, done))),
          );
      }),
    );
  }
  const interval = 1 / rps;
  const servedAtS: number[] = [];
  for (;;) {
    for (let i = waiting.length - 1; i >= 0; i--) {
      if (waiting[i]!.at <= now + 1e-9) heap.push(waiting.splice(i, 1)[0]!);
    }
    const request = heap.pop();
    if (!request) {
      if (waiting.length === 0) break;
      now = Math.min(...waiting.map((w) => w.at));
      continue;
    }
    now += interval;
    servedAtS.push(now);
    request.next();
  }
  return { makespanS: end, servedAtS };
}

/** A small binary heap (the ideal schedule has tens of thousands of requests). */
class ReadyHeap<T> {
  private readonly items: T[] = [];
  constructor(private readonly before: (a: T, b: T) => number) {}

  push(item: T): void {
    const items = this.items;
    items.push(item);
    for (let i = items.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (this.before(items[i]!, items[parent]!) >= 0) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < items.length && this.before(items[l]!, items[best]!) < 0) best = l;
        if (r < items.length && this.before(items[r]!, items[best]!) < 0) best = r;
        if (best === i) break;
        [items[i], items[best]] = [items[best]!, items[i]!];
        i = best;
      }
    }
    return top;
  }
}

import type { CampaignProgress } from '../api-types';

/** One point of the chart: what a campaign progress snapshot says at its elapsed time. */
export interface ThroughputSample {
  elapsedMs: number;
  windowSize: number;
  inFlight: number;
  /** Provider requests/s accepted (not 429) and the quota: only an auto window that knows the quota reports them. */
  servedRps?: number;
  quotaRps?: number;
}

/** A chart point from a campaign progress snapshot (its window's numeric rates, when measured). */
export function sampleOf(progress: CampaignProgress): ThroughputSample {
  const { providerRps, quotaRps } = progress.window;
  return {
    elapsedMs: progress.elapsedMs,
    windowSize: progress.window.size,
    inFlight: progress.counts.running,
    ...(providerRps !== undefined ? { servedRps: providerRps } : {}),
    ...(quotaRps !== undefined ? { quotaRps } : {}),
  };
}

const WIDTH = 640;
const HEIGHT = 260;
const PAD = { left: 48, right: 48, top: 16, bottom: 36 };
/**
 * Room above each axis's highest figure. Unequal, so a full window and the quota (each its own
 * axis's highest figure while a campaign runs at its bound) are drawn apart, not one over the other.
 */
const RATE_HEADROOM = 1.1;
const WINDOW_HEADROOM = 1.35;

/**
 * Accepted provider requests/s against the quota (left axis) and the in-flight window (right
 * axis) over the campaign's time: an SVG image whose name and description say what it shows.
 */
export function ThroughputChart({ samples }: { samples: ThroughputSample[] }) {
  const points = [...samples].sort((a, b) => a.elapsedMs - b.elapsedMs);
  const last = points[points.length - 1];
  const maxT = Math.max(1_000, ...points.map((p) => p.elapsedMs));
  const rates = points.flatMap((p) => [p.servedRps ?? 0, p.quotaRps ?? 0]);
  const maxRate = Math.max(1, ...rates) * RATE_HEADROOM;
  const maxWindow = Math.max(1, ...points.flatMap((p) => [p.windowSize, p.inFlight])) * WINDOW_HEADROOM;
  const x = (t: number) => PAD.left + ((WIDTH - PAD.left - PAD.right) * t) / maxT;
  const yRate = (r: number) => HEIGHT - PAD.bottom - ((HEIGHT - PAD.top - PAD.bottom) * r) / maxRate;
  const yWindow = (w: number) => HEIGHT - PAD.bottom - ((HEIGHT - PAD.top - PAD.bottom) * w) / maxWindow;
  // Steps, not slopes: a figure holds until the next snapshot changes it.
  const line = (pick: (p: ThroughputSample) => number | undefined, y: (v: number) => number) => {
    const corners: string[] = [];
    let previous: number | undefined;
    for (const p of points) {
      const value = pick(p);
      if (value === undefined) continue;
      const at = x(p.elapsedMs).toFixed(1);
      if (previous !== undefined) corners.push(`${at},${y(previous).toFixed(1)}`);
      corners.push(`${at},${y(value).toFixed(1)}`);
      previous = value;
    }
    return corners.join(' ');
  };
  const served = line((p) => p.servedRps, yRate);
  const quota = line((p) => p.quotaRps, yRate);
  const window = line((p) => p.windowSize, yWindow);
  const inFlight = line((p) => p.inFlight, yWindow);
  const description = last
    ? `${points.length} samples over ${(last.elapsedMs / 1000).toFixed(0)} s. Latest: ` +
      (last.servedRps !== undefined
        ? `${last.servedRps} accepted provider requests per second of a quota of ${last.quotaRps}; `
        : 'no requests-per-second figure reported yet (the workers report it with an auto window and a known quota); ') +
      `window ${last.windowSize}, ${last.inFlight} subjects in flight.`
    : 'No samples yet.';
  return (
    <figure class="chart">
      <svg
        role="img"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        aria-labelledby="chart-title chart-desc"
        width="100%"
        preserveAspectRatio="xMidYMid meet"
      >
        <title id="chart-title">
          Accepted provider requests per second against the quota, and the in-flight window, over time
        </title>
        <desc id="chart-desc">{description}</desc>
        <line
          class="axis"
          x1={PAD.left}
          y1={HEIGHT - PAD.bottom}
          x2={WIDTH - PAD.right}
          y2={HEIGHT - PAD.bottom}
        />
        <line class="axis" x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={HEIGHT - PAD.bottom} />
        <line
          class="axis"
          x1={WIDTH - PAD.right}
          y1={PAD.top}
          x2={WIDTH - PAD.right}
          y2={HEIGHT - PAD.bottom}
        />
        <text class="tick" x={PAD.left - 6} y={yRate(maxRate / RATE_HEADROOM) + 4} text-anchor="end">
          {(maxRate / RATE_HEADROOM).toFixed(1)}
        </text>
        <text class="tick" x={PAD.left - 6} y={HEIGHT - PAD.bottom + 4} text-anchor="end">
          0
        </text>
        <text class="tick" x={WIDTH - PAD.right + 6} y={yWindow(maxWindow / WINDOW_HEADROOM) + 4}>
          {Math.round(maxWindow / WINDOW_HEADROOM)}
        </text>
        <text class="tick" x={WIDTH - PAD.right + 6} y={HEIGHT - PAD.bottom + 4}>
          0
        </text>
        <text class="tick" x={WIDTH - PAD.right} y={HEIGHT - 8} text-anchor="end">
          {(maxT / 1000).toFixed(0)} s
        </text>
        <text class="tick" x={PAD.left} y={HEIGHT - 8}>
          requests/s (left) · subjects (right)
        </text>
        {quota && <Series kind="quota" points={quota} name="quota (requests/s)" />}
        {served && <Series kind="served" points={served} name="accepted provider requests/s" />}
        {window && <Series kind="window" points={window} name="in-flight window" />}
        {inFlight && <Series kind="in-flight" points={inFlight} name="subjects in flight" />}
      </svg>
      <figcaption>
        <ul class="legend">
          <li class="served">accepted provider requests/s</li>
          <li class="quota">quota (requests/s)</li>
          <li class="window">in-flight window</li>
          <li class="in-flight">subjects in flight</li>
        </ul>
      </figcaption>
    </figure>
  );
}

/** One line of the chart, named by its `<title>` (what the legend calls it). */
function Series({ kind, points, name }: { kind: string; points: string; name: string }) {
  return (
    <polyline class={`series ${kind}`} points={points}>
      <title>{name}</title>
    </polyline>
  );
}

/**
 * The in-flight window's readings, tuning and state: what the campaign's activity returns, what it
 * carries through continue-as-new and shows in its progress. The controller that moves the window
 * is workflows/campaign/window-controller.ts.
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
  /** Age of the oldest workflow task waiting in the campaign's own task queue, when read. */
  workflowBacklogAgeMs?: number;
  requests: number;
  rateLimited: number;
  errors: number;
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
  /** Subjects waiting to start (the manifest's rest and queued retries), when known. */
  waiting?: number;
  /** Time since the previous sample (workflow time), when there was one. */
  elapsedMs?: number;
  /** The provider queue's rate limit (PROVIDER_MAX_RPS), when the worker knows it. */
  quotaRps?: number;
  /** Tasks dispatched per second from the provider queue to every worker (the server's average), when known. */
  dispatchRate?: number;
  /**
   * Age of the oldest workflow task waiting in the task queue of the campaign and its pipelines:
   * how far behind the workers are (CPU, task slots), when known.
   */
  workerBacklogMs?: number;
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
  /** Backlog wait under which the provider keeps up (grow). */
  lowBacklogMs: number;
  /** Backlog wait over which requests wait too long (shrink unless draining or a passing burst). */
  highBacklogMs: number;
  /** Workflow-task wait over which the workers are the bound (hold; shrink past four times it). */
  workerBusyMs: number;
}

export type WindowReason =
  | 'starting'
  | 'growing'
  | 'holding'
  | 'not-full'
  | 'backlog'
  | 'rate-limited'
  | 'provider-errors'
  | 'workers-busy'
  | 'last-subjects'
  | 'at-cap'
  | 'worker-capacity';

/** The window and why it has that size; travels through continue-as-new. */
export interface WindowState {
  size: number;
  reason: WindowReason;
  /** One line for people: the figures behind the reason. */
  detail: string;
  /** Backlog of the previous sample, for the trend. */
  lastBacklogAgeMs: number;
  lastBacklogCount?: number;
  /** Whether the previous sample's wait was over `highBacklogMs`. */
  lastOverHigh?: boolean;
  /** Whether the previous sample had 429 answers. */
  lastRateLimited?: boolean;
  /**
   * Averages over about one subject's duration (Little's law: in flight ÷ completions per second;
   * the campaign's age before the first completion), so the subjects' phases (the bursts at start
   * and at the end, the quiet training between) even out: requests/s demanded (served plus the
   * backlog's growth), subjects in flight, completions/s, and the time they cover.
   */
  averages?: { demandRps: number; inFlight: number; completionRps: number; coveredMs: number };
  /** False until the first congestion: growth is bolder until then. */
  congested: boolean;
  /** The tenant's open campaigns sharing its window when more than one (tenant-window.ts). */
  campaignsSharing?: number;
  /**
   * The provider's accepted requests/s over the last sample and the quota it counts against, when
   * the sample had both (a quota the worker knows and a previous reading to measure from).
   */
  providerRps?: number;
  quotaRps?: number;
}

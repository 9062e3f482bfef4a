import type { PollingBounds } from '../contracts/polling-bounds';

/** The operator's quality checks, as starters see them (the thresholds are the check workers'). */
export interface CheckPlacement {
  /** CHECKS_TASK_QUEUE, default `<taskQueue>-checks`. */
  taskQueue: string;
  /** SELFIE_CHECKS: selfies are checked before a run starts (campaign subjects: before the first provider write). */
  selfies: boolean;
  /** AVATAR_CHECKS: each style's avatars are checked when its order is done. */
  avatars: boolean;
  /** AVATAR_CHECK_REGENERATIONS: more orders a style whose avatars fail may be given. */
  avatarRegenerations: number;
}

/**
 * Where a run goes and what it carries from the configuration: every start (API, CLI, client
 * package, campaigns, demo) takes one, and workers poll the same queues, so starters and workers
 * cannot disagree on a queue name.
 */
export interface RunPlacement {
  /** TEMPORAL_TASK_QUEUE: the workflows and their light activities. */
  taskQueue: string;
  /**
   * PROVIDER_TASK_QUEUE, default `<taskQueue>-provider`: provider activities, whose workers hold
   * the whole deployment under PROVIDER_MAX_RPS. Interactive runs use it too, ahead of campaign work.
   */
  providerTaskQueue: string;
  /** ARCHIVE_AVATARS: runs copy their avatars into the blob store. */
  archiveAvatars: boolean;
  /**
   * PROVIDER_POLL_MIN_INTERVAL_MS and PROVIDER_POLL_MAX_INTERVAL_MS: the polling intervals callers
   * may ask for. Absent (a hand-built placement): unbounded.
   */
  pollingBounds?: PollingBounds;
  /** Absent (a hand-built placement): no quality checks. */
  checks?: CheckPlacement;
}

/** What the configuration says about placement; the provider task queue and archiving are optional. */
export interface PlacementSettings {
  taskQueue: string;
  providerTaskQueue?: string | undefined;
  /** Absent: no archiving (the environment's ARCHIVE_AVATARS is on unless set otherwise). */
  archiveAvatars?: boolean | undefined;
  pollingBounds?: PollingBounds | undefined;
  /** Absent: no checks (the environment's SELFIE_CHECKS is on unless set otherwise). */
  checks?: (Omit<CheckPlacement, 'taskQueue'> & { taskQueue?: string | undefined }) | undefined;
}

/** The one place a placement is worked out; tests and benchmarks build theirs here too. */
export function placementFrom(settings: PlacementSettings): RunPlacement {
  return {
    taskQueue: settings.taskQueue,
    providerTaskQueue: settings.providerTaskQueue ?? providerQueueOf(settings.taskQueue),
    archiveAvatars: settings.archiveAvatars ?? false,
    ...(settings.pollingBounds ? { pollingBounds: settings.pollingBounds } : {}),
    ...(settings.checks
      ? {
          checks: {
            ...settings.checks,
            taskQueue: settings.checks.taskQueue ?? checksQueueOf(settings.taskQueue),
          },
        }
      : {}),
  };
}

/** The checks' task queue when CHECKS_TASK_QUEUE is not set, for starters and check workers alike. */
function checksQueueOf(taskQueue: string): string {
  return `${taskQueue}-checks`;
}

/**
 * The provider task queue when PROVIDER_TASK_QUEUE is not set: workers, the API, the CLI and the
 * client package all come through placementFrom, or provider activities would wait on a queue
 * nobody polls.
 */
function providerQueueOf(taskQueue: string): string {
  return `${taskQueue}-provider`;
}

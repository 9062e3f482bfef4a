import type { Client } from '@temporalio/client';
import { PROGRESS_FEED_CAPACITY } from '@avatar-pipeline/client/contracts/progress-feed';
import { followProgress, type ProgressStreamEvent } from '@avatar-pipeline/client/client/progress-stream';
import { ApiError } from './api-error';

/** How many event streams may be open at once. */
export interface EventStreamLimits {
  /** On one run, from all clients together. */
  perRun: number;
  /** From one bearer token, over all runs. */
  perToken: number;
}

/** Follows one run's progress until `signal` aborts: every change, then its outcome, last. */
export type RunFollower = (
  workflowId: string,
  signal: AbortSignal,
) => AsyncIterable<ProgressStreamEvent<unknown, unknown>>;

/** Time between two queries of a watched run: two a second, however many streams it has. */
const WATCH_INTERVAL_MS = 500;

/** Follows runs by querying their progress feed (packages/client/src/client/progress-stream.ts). */
export function queryFollower(client: Client, intervalMs = WATCH_INTERVAL_MS): RunFollower {
  return (workflowId, signal) => followProgress(client, workflowId, { signal, minIntervalMs: intervalMs });
}

export interface HubOptions {
  /**
   * How many of the latest changes a watcher keeps for streams that join later or resume from
   * further back. A feed of whole snapshots (a list) needs its latest one only.
   * @default PROGRESS_FEED_CAPACITY (as many as a run keeps)
   */
  keep?: number;
  /** What the key names, in a 429's message. @default `run <key>` */
  nameOf?: (key: string) => string;
}

type ProgressEvent<P> = Extract<ProgressStreamEvent<P, never>, { type: 'progress' }>;

/** One open stream of a run: the events it is owed, read in order by its route. */
export interface ProgressSubscription<P, R> extends AsyncIterable<ProgressStreamEvent<P, R>> {
  /** Frees the stream's place (at most once); the run's watcher stops with its last stream. */
  close(): void;
}

/**
 * One watcher per run for all of the API's event streams: it follows the run's progress feed by
 * query (packages/client/src/client/progress-stream.ts), which writes nothing to the run's history, and hands
 * every change to each open stream of that run, each resuming from its own Last-Event-ID out of
 * the changes the watcher keeps (as many as the run keeps). However many streams open, and however
 * often they reconnect, a run is queried by one watcher at a modest pace. The watcher starts with
 * the run's first stream and stops with its last; after the run closes it hands on the outcome
 * once and is gone. Streams are capped per run and per token (429 beyond).
 */
export class ProgressHub {
  private readonly watchers = new Map<string, RunWatcher>();
  private readonly perToken = new Map<string, number>();
  private readonly keep: number;
  private readonly nameOf: (key: string) => string;

  constructor(
    private readonly follow: RunFollower,
    private readonly limits: EventStreamLimits,
    options: HubOptions = {},
  ) {
    this.keep = options.keep ?? PROGRESS_FEED_CAPACITY;
    this.nameOf = options.nameOf ?? ((workflowId) => `run ${workflowId}`);
  }

  /**
   * Opens a stream of `workflowId`'s progress after version `afterVersion` for the holder of
   * `tokenKey`; throws a 429 ApiError when the run or the token has as many streams as allowed.
   */
  open<P, R>(workflowId: string, tokenKey: string, afterVersion: number): ProgressSubscription<P, R> {
    const { perRun, perToken } = this.limits;
    const existing = this.watchers.get(workflowId);
    if ((existing?.size ?? 0) >= perRun) {
      throw new ApiError(
        429,
        `Too many event streams open on ${this.nameOf(workflowId)}: at most ${perRun}; close one and retry`,
      );
    }
    const held = this.perToken.get(tokenKey) ?? 0;
    if (held >= perToken) {
      throw new ApiError(
        429,
        `Too many event streams open with this token: at most ${perToken}; close one and retry`,
      );
    }
    const watcher = existing ?? this.watch(workflowId);
    this.perToken.set(tokenKey, held + 1);
    const subscriber = new Subscriber<P, R>(afterVersion, () => {
      watcher.leave(subscriber);
      const left = (this.perToken.get(tokenKey) ?? 1) - 1;
      if (left > 0) this.perToken.set(tokenKey, left);
      else this.perToken.delete(tokenKey);
    });
    watcher.join(subscriber);
    return subscriber;
  }

  /** Runs being watched (for tests and metrics). */
  get watchedRuns(): number {
    return this.watchers.size;
  }

  /** Streams open with a token (for tests and metrics). */
  streamsOf(tokenKey: string): number {
    return this.perToken.get(tokenKey) ?? 0;
  }

  /** Stops every watcher; their streams end as if the client had gone. */
  close(): void {
    for (const watcher of this.watchers.values()) watcher.stop();
  }

  private watch(workflowId: string): RunWatcher {
    const watcher = new RunWatcher(this.follow, workflowId, this.keep, () => {
      if (this.watchers.get(workflowId) === watcher) this.watchers.delete(workflowId);
    });
    this.watchers.set(workflowId, watcher);
    return watcher;
  }
}

/** Follows one run and fans each event out to its subscribers. */
class RunWatcher {
  private readonly subscribers = new Set<Subscriber<unknown, unknown>>();
  /** The latest changes seen, oldest first, for streams that join later or resume from further back. */
  private readonly kept: ProgressEvent<unknown>[] = [];
  private readonly abort = new AbortController();

  constructor(
    follow: RunFollower,
    workflowId: string,
    private readonly keep: number,
    private readonly gone: () => void,
  ) {
    void this.run(follow, workflowId);
  }

  get size(): number {
    return this.subscribers.size;
  }

  join(subscriber: Subscriber<unknown, unknown>): void {
    this.subscribers.add(subscriber);
    for (const event of this.kept) subscriber.deliver(event);
  }

  leave(subscriber: Subscriber<unknown, unknown>): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size === 0) this.stop();
  }

  stop(): void {
    this.gone();
    this.abort.abort();
    for (const subscriber of this.subscribers) subscriber.fail(undefined);
  }

  private async run(follow: RunFollower, workflowId: string): Promise<void> {
    try {
      for await (const event of follow(workflowId, this.abort.signal)) {
        if (event.type === 'progress') {
          this.kept.push(event);
          if (this.kept.length > this.keep) this.kept.shift();
        } else {
          // The outcome is the last event: later streams of this run start a watcher of their own.
          this.gone();
        }
        for (const subscriber of this.subscribers) subscriber.deliver(event);
      }
      // Stopped, or the follower ended without an outcome: streams still waiting end too.
      this.gone();
      for (const subscriber of this.subscribers) subscriber.fail(undefined);
    } catch (err) {
      this.gone();
      for (const subscriber of this.subscribers) subscriber.fail(err);
    }
  }
}

/** One stream's queue of events, each progress after the last one it got. */
class Subscriber<P, R> implements ProgressSubscription<P, R> {
  private readonly queue: ProgressStreamEvent<P, R>[] = [];
  private wake: (() => void) | undefined;
  /** Set when the stream must end without an outcome: undefined when stopped, the error when it failed. */
  private ending: { error: unknown } | undefined;
  private closed = false;

  constructor(
    private after: number,
    private readonly release: () => void,
  ) {}

  deliver(event: ProgressStreamEvent<unknown, unknown>): void {
    if (event.type === 'progress') {
      if (event.version <= this.after) return;
      const skipped = event.version > this.after + 1;
      this.after = event.version;
      this.queue.push({ ...(event as ProgressEvent<P>), skipped });
    } else {
      this.queue.push(event as ProgressStreamEvent<P, R>);
    }
    this.notify();
  }

  fail(error: unknown): void {
    this.ending ??= { error };
    this.notify();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.release();
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ProgressStreamEvent<P, R>> {
    try {
      while (!this.closed) {
        const event = this.queue.shift();
        if (event) {
          yield event;
          if (event.type !== 'progress') return;
          continue;
        }
        if (this.ending) {
          if (this.ending.error !== undefined) throw this.ending.error;
          return;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.close();
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

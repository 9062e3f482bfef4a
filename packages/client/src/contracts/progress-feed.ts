/**
 * The progress feed: how a watcher (the API's event stream, the client package) learns of every
 * change of a workflow's progress. The workflow numbers its progress snapshots (version 1, 2, …)
 * and keeps the latest ones in memory; a watcher queries the changes after the last version it
 * saw. A query is answered by a worker and never written to the run's history, so watching, however
 * often, cannot grow the history toward Temporal's limits.
 *
 * Workflow-safe: definitions and plain types only.
 */
import { defineQuery } from './message-definitions';

/** One snapshot of progress and its place in the sequence. */
export interface ProgressChange<P> {
  version: number;
  progress: P;
}

export interface ProgressChanges<P> {
  /** Every kept change after the asked version, oldest first; empty when there is none yet. */
  changes: ProgressChange<P>[];
  /**
   * True when changes between the asked version and the first one returned are no longer kept
   * (the workflow keeps the latest PROGRESS_FEED_CAPACITY): every change is a whole snapshot, so
   * the first one returned still tells the full current state.
   */
  skipped: boolean;
}

export interface ProgressSince {
  /** The last version the watcher saw; 0 for none. */
  afterVersion: number;
}

/** What a run that continues as new hands its next run: the count goes on, the latest snapshots stay. */
export interface ProgressFeedCarry<P> {
  version: number;
  kept: ProgressChange<P>[];
}

/** How many of the latest snapshots a workflow keeps for watchers that fell behind or reconnect. */
export const PROGRESS_FEED_CAPACITY = 200;

/** Every kept change after `afterVersion`, at once; answered by open and closed runs alike. */
export const progressChangesQuery = defineQuery<ProgressChanges<unknown>, [ProgressSince]>('progressChanges');

import { HandlerUnfinishedPolicy } from '@temporalio/common';
import { condition, setHandler } from '@temporalio/workflow';
import {
  PROGRESS_FEED_CAPACITY,
  progressChangesQuery,
  progressChangesUpdate,
  type ProgressChange,
  type ProgressChanges,
  type ProgressFeedCarry,
} from '../src/contracts/progress-feed';

/**
 * The workflow side of the progress feed (src/contracts/progress-feed.ts): numbers each snapshot
 * and keeps the latest ones, in memory only, so a run nobody watches writes nothing more to its
 * history. Replay rebuilds it, since every snapshot follows from the history.
 */
export class ProgressLog<P> {
  private version: number;
  private readonly kept: ProgressChange<P>[];
  private released = false;

  /** A run that continued as new goes on counting from its previous run's last version. */
  constructor(
    private readonly capacity = PROGRESS_FEED_CAPACITY,
    carried?: ProgressFeedCarry<P>,
  ) {
    this.version = carried?.version ?? 0;
    this.kept = [...(carried?.kept ?? [])];
  }

  /** Answers the feed's update and query from now on. */
  install(): void {
    setHandler(
      progressChangesUpdate,
      async ({ afterVersion }) => {
        // A version from the future means the watcher counted elsewhere: answer with what there is.
        await condition(() => this.released || this.version > afterVersion || afterVersion > this.version);
        return this.since(afterVersion > this.version ? 0 : afterVersion);
      },
      {
        validator: ({ afterVersion }) => {
          if (!Number.isInteger(afterVersion) || afterVersion < 0) {
            throw new Error('afterVersion must be a whole number, 0 or more');
          }
        },
        // A watcher waiting when the run ends learns of the end from the run itself.
        unfinishedPolicy: HandlerUnfinishedPolicy.ABANDON,
        description: 'Waits until progress is past afterVersion, then returns every kept change since',
      },
    );
    setHandler(progressChangesQuery, ({ afterVersion }) => this.since(afterVersion), {
      description: 'Every kept change of progress after afterVersion, without waiting',
    });
  }

  /** Records the next snapshot (the caller passes a copy it will not change). */
  record(progress: P): void {
    this.version += 1;
    this.kept.push({ version: this.version, progress });
    if (this.kept.length > this.capacity) this.kept.shift();
  }

  /** Rewrites the kept snapshots (erasure drops a person from them); their versions stay. */
  rewrite(change: (progress: P) => P): void {
    for (const kept of this.kept) kept.progress = change(kept.progress);
  }

  get current(): number {
    return this.version;
  }

  /**
   * Answers every waiting watcher now, and later ones at once: before the run closes or continues
   * as new, since waiting handlers would hold it (allHandlersFinished). Watchers then ask again,
   * and reach the next run.
   */
  release(): void {
    this.released = true;
  }

  /** The count and the latest `count` snapshots, for the next run (continue-as-new). */
  carry(count: number): ProgressFeedCarry<P> {
    return { version: this.version, kept: this.kept.slice(-count) };
  }

  private since(afterVersion: number): ProgressChanges<unknown> {
    const changes = this.kept.filter((change) => change.version > afterVersion);
    const first = changes[0];
    return { changes, skipped: first !== undefined && first.version > afterVersion + 1 };
  }
}

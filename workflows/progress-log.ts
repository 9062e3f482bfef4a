import { HandlerUnfinishedPolicy } from '@temporalio/common';
import { condition, defineUpdate, setHandler } from '@temporalio/workflow';
import {
  PROGRESS_FEED_CAPACITY,
  progressChangesQuery,
  type ProgressChange,
  type ProgressChanges,
  type ProgressFeedCarry,
  type ProgressSince,
} from '../src/contracts/progress-feed';

/**
 * The update watchers once waited on. Every accepted update is written to the run's history, so a
 * watcher reconnecting in a loop could push a run past Temporal's history limit; watchers query
 * instead. The handler stays only so runs whose history already holds accepted updates replay
 * unchanged (replay does not run validators); its validator refuses every new call, and a refused
 * update leaves no trace in history. Delete it once no run started before the query-only feed is open.
 */
const retiredProgressChangesUpdate = defineUpdate<ProgressChanges<unknown>, [ProgressSince]>(
  'progressChanges',
);

/**
 * The workflow side of the progress feed (src/contracts/progress-feed.ts): numbers each snapshot
 * and keeps the latest ones, in memory only, so watching a run writes nothing to its history.
 * Replay rebuilds it, since every snapshot follows from the history.
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

  /** Answers the feed's query from now on. */
  install(): void {
    setHandler(progressChangesQuery, ({ afterVersion }) => this.since(afterVersion), {
      description: 'Every kept change of progress after afterVersion, without waiting',
    });
    setHandler(
      retiredProgressChangesUpdate,
      async ({ afterVersion }) => {
        await condition(() => this.released || this.version > afterVersion || afterVersion > this.version);
        return this.since(afterVersion > this.version ? 0 : afterVersion);
      },
      {
        validator: (_since: ProgressSince) => {
          throw new Error('progressChanges is a query: read progress with the progressChanges query');
        },
        unfinishedPolicy: HandlerUnfinishedPolicy.ABANDON,
        description: 'Retired: refused; read progress with the progressChanges query',
      },
    );
  }

  /** Records the next snapshot (the caller passes a copy it will not change). */
  record(progress: P): void {
    this.version += 1;
    this.kept.push({ version: this.version, progress });
    if (this.kept.length > this.capacity) this.kept.shift();
  }

  get current(): number {
    return this.version;
  }

  /**
   * Lets updates accepted before the feed became query-only finish (replayed runs only: no new one
   * is accepted), before the run closes or continues as new, since they would hold it
   * (allHandlersFinished).
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

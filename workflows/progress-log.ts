import { setHandler } from '@temporalio/workflow';
import {
  PROGRESS_FEED_CAPACITY,
  progressChangesQuery,
  type ProgressChange,
  type ProgressChanges,
  type ProgressFeedCarry,
} from '@avatar-pipeline/client/contracts/progress-feed';

/**
 * The workflow side of the progress feed (packages/client/src/contracts/progress-feed.ts): numbers each snapshot
 * and keeps the latest ones, in memory only, so watching a run writes nothing to its history.
 * Replay rebuilds it, since every snapshot follows from the history.
 */
export class ProgressLog<P> {
  private version: number;
  private readonly kept: ProgressChange<P>[];

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

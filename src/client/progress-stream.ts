import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  progressChangesQuery,
  progressChangesUpdate,
  type ProgressChanges,
} from '../contracts/progress-feed';

/** What a watcher of a run sees: each change of progress, then exactly one outcome, last. */
export type ProgressStreamEvent<P, R> =
  | {
      type: 'progress';
      version: number;
      progress: P;
      /** True when versions between the previous event and this one are no longer kept by the run. */
      skipped: boolean;
    }
  | { type: 'result'; result: R }
  | { type: 'error'; error: { message: string; type?: string } };

export interface FollowProgressOptions {
  /** The last version already seen (an SSE Last-Event-ID); 0 or absent for everything the run keeps. */
  afterVersion?: number;
  /** Stops following (the generator returns) when aborted. */
  signal?: AbortSignal;
  /**
   * Least time between two waits. Changes arriving meanwhile come together in the next answer (none
   * is lost: the run keeps them), so a quickly changing run costs at most one update per interval.
   */
  minIntervalMs?: number;
  /** How long reading the last changes of a closed run may wait for a worker to answer the query. */
  closedQueryMs?: number;
}

/** Transient failures of the wait in a row before the stream gives up. */
const MAX_WAIT_FAILURES = 5;

/**
 * Follows a run's progress feed (src/contracts/progress-feed.ts): a workflow update that the run
 * answers when its progress moves past the last version seen, so nothing polls while nothing
 * changes. When the run closes, the changes it made since the last answer come from the feed's
 * query, then its result or error from history, and the generator ends.
 */
export async function* followProgress<P, R>(
  client: Client,
  workflowId: string,
  options: FollowProgressOptions = {},
): AsyncGenerator<ProgressStreamEvent<P, R>> {
  const handle = client.workflow.getHandle(workflowId);
  const { signal } = options;
  let after = options.afterVersion ?? 0;
  let failures = 0;

  const emit = function* (answer: ProgressChanges<unknown>): Generator<ProgressStreamEvent<P, R>> {
    for (const [index, change] of answer.changes.entries()) {
      if (change.version <= after) continue;
      after = change.version;
      yield {
        type: 'progress',
        version: change.version,
        progress: change.progress as P,
        skipped: index === 0 && answer.skipped,
      };
    }
  };

  while (!signal?.aborted) {
    let answer: ProgressChanges<unknown>;
    try {
      answer = await withSignal(client, signal, () =>
        handle.executeUpdate(progressChangesUpdate, { args: [{ afterVersion: after }] }),
      );
    } catch (err) {
      if (signal?.aborted) return;
      if ((await handle.describe()).status.name !== 'RUNNING') break;
      if (++failures >= MAX_WAIT_FAILURES) throw err;
      await delay(500, undefined, signal ? { signal } : {}).catch(() => undefined);
      continue;
    }
    failures = 0;
    yield* emit(answer);
    if (options.minIntervalMs) {
      await delay(options.minIntervalMs, undefined, signal ? { signal } : {}).catch(() => undefined);
    }
  }
  if (signal?.aborted) return;

  // The run has closed: its last changes, if a worker answers the query in time.
  const last = await client
    .withDeadline(Date.now() + (options.closedQueryMs ?? 3_000), () =>
      handle.query(progressChangesQuery, { afterVersion: after }),
    )
    .catch((): ProgressChanges<unknown> => ({ changes: [], skipped: false }));
  yield* emit(last);
  yield await outcome<R>(client, workflowId);
}

async function withSignal<T>(
  client: Client,
  signal: AbortSignal | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  return signal ? client.withAbortSignal(signal, fn) : fn();
}

async function outcome<R>(client: Client, workflowId: string): Promise<ProgressStreamEvent<never, R>> {
  try {
    return { type: 'result', result: (await client.workflow.getHandle(workflowId).result()) as R };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    let root: Error = err;
    for (let depth = 0; depth < 10 && root.cause instanceof Error; depth++) root = root.cause;
    return {
      type: 'error',
      error: {
        message: root.message,
        ...(root instanceof ApplicationFailure && root.type ? { type: root.type } : {}),
      },
    };
  }
}

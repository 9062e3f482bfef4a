import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { progressChangesQuery, type ProgressChanges } from '../contracts/progress-feed';

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
   * Time between two queries of the run's progress. Changes made meanwhile come together in the
   * next answer (none is lost: the run keeps them).
   * @default 1000
   */
  minIntervalMs?: number;
  /**
   * How long one query may wait for a worker to answer; an unanswered query is asked again at
   * the next interval while the run is open.
   * @default 5000
   */
  queryTimeoutMs?: number;
  /**
   * How long reading the last changes of a closed run may wait for a worker to answer the query.
   * @default 3000
   */
  closedQueryMs?: number;
}

const DEFAULT_INTERVAL_MS = 1_000;
const DEFAULT_QUERY_TIMEOUT_MS = 5_000;
const DEFAULT_CLOSED_QUERY_MS = 3_000;

type Settled<T> = { ok: T } | { err: unknown };

/**
 * Follows a run's progress feed (packages/client/src/contracts/progress-feed.ts) by querying it: a query is
 * answered by a worker and never written to the run's history, so however many watchers follow a
 * run, and however often they reconnect, its history does not grow. The run's close is learned
 * from a long poll on its history (following continue-as-new); then the changes made since the
 * last query, its result or error, and the generator ends.
 */
export async function* followProgress<P, R>(
  client: Client,
  workflowId: string,
  options: FollowProgressOptions = {},
): AsyncGenerator<ProgressStreamEvent<P, R>> {
  if (options.signal?.aborted) return;
  const handle = client.workflow.getHandle(workflowId);
  // Aborted when the caller's signal is, and when the generator ends, so the long poll stops too.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const intervalMs = options.minIntervalMs ?? DEFAULT_INTERVAL_MS;
  let after = options.afterVersion ?? 0;

  const changesSince = (timeoutMs: number): Promise<ProgressChanges<unknown> | undefined> =>
    client
      .withAbortSignal(stop.signal, () =>
        client.withDeadline(Date.now() + timeoutMs, () =>
          handle.query(progressChangesQuery, { afterVersion: after }),
        ),
      )
      .catch(() => undefined);

  const emit = function* (
    answer: ProgressChanges<unknown> | undefined,
  ): Generator<ProgressStreamEvent<P, R>> {
    for (const [index, change] of (answer?.changes ?? []).entries()) {
      if (change.version <= after) continue;
      after = change.version;
      yield {
        type: 'progress',
        version: change.version,
        progress: change.progress as P,
        skipped: index === 0 && answer!.skipped,
      };
    }
  };

  let closed: Settled<ProgressStreamEvent<never, R>> | undefined;
  const closing = client
    .withAbortSignal(stop.signal, () => outcome<R>(handle))
    .then(
      (ok): Settled<ProgressStreamEvent<never, R>> => ({ ok }),
      (err: unknown): Settled<ProgressStreamEvent<never, R>> => ({ err }),
    )
    .then((settled) => (closed = settled));

  try {
    while (!closed) {
      yield* emit(await changesSince(options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS));
      if (stop.signal.aborted) return;
      if (closed) break;
      await Promise.race([
        delay(intervalMs, undefined, { signal: stop.signal }).catch(() => undefined),
        closing,
      ]);
      if (stop.signal.aborted) return;
    }
    if (stop.signal.aborted) return;
    // The run has closed: the changes it made since the last query, if a worker answers in time.
    yield* emit(await changesSince(options.closedQueryMs ?? DEFAULT_CLOSED_QUERY_MS));
    const settled = await closing;
    if ('err' in settled) throw settled.err;
    yield settled.ok;
  } finally {
    stop.abort();
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** Waits for the run to close; its result, or its error as the stream's last event. */
async function outcome<R>(handle: WorkflowHandle): Promise<ProgressStreamEvent<never, R>> {
  try {
    return { type: 'result', result: (await handle.result()) as R };
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

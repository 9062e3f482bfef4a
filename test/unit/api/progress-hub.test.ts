import { ApiError } from '../../../src/api/api-error';
import { ProgressHub, type RunFollower } from '../../../src/api/progress-hub';
import type { ProgressStreamEvent } from '@avatar-pipeline/client/client/progress-stream';

type Event = ProgressStreamEvent<unknown, unknown>;

/** A follower per run that the test feeds by hand, counting how many were started. */
class FakeRuns {
  started: string[] = [];
  private readonly feeds = new Map<string, { push(e: Event | Error): void; signal: AbortSignal }>();

  readonly follow: RunFollower = (workflowId, signal) => {
    this.started.push(workflowId);
    const queue: (Event | Error)[] = [];
    let wake: (() => void) | undefined;
    this.feeds.set(workflowId, {
      push: (e) => {
        queue.push(e);
        wake?.();
      },
      signal,
    });
    signal.addEventListener('abort', () => wake?.());
    return (async function* () {
      while (!signal.aborted) {
        const next = queue.shift();
        if (next instanceof Error) throw next;
        if (next) {
          yield next;
          if (next.type !== 'progress') return;
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    })();
  };

  progress(workflowId: string, version: number): void {
    this.feed(workflowId).push({ type: 'progress', version, progress: { step: version }, skipped: false });
  }

  result(workflowId: string): void {
    this.feed(workflowId).push({ type: 'result', result: { done: true } });
  }

  fail(workflowId: string): void {
    this.feed(workflowId).push(new Error('connection lost'));
  }

  signal(workflowId: string): AbortSignal {
    return this.feed(workflowId).signal;
  }

  private feed(workflowId: string) {
    const feed = this.feeds.get(workflowId);
    if (!feed) throw new Error(`no follower of ${workflowId}`);
    return feed;
  }
}

function reader(subscription: AsyncIterable<Event>) {
  const iterator = subscription[Symbol.asyncIterator]();
  return async (): Promise<Event | undefined> => {
    const next = await Promise.race([
      iterator.next(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no event within 1 s')), 1_000)),
    ]);
    return next.done ? undefined : next.value;
  };
}

const progressOf = (version: number, skipped = false) => ({
  type: 'progress',
  version,
  progress: { step: version },
  skipped,
});

function refusal(open: () => unknown): ApiError {
  try {
    open();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('the stream was not refused');
}

describe('ProgressHub: one watcher per run for all its event streams', () => {
  const limits = { perRun: 50, perToken: 20 };

  it('follows a run once for all its streams and hands every change to each, then the outcome', async () => {
    const runs = new FakeRuns();
    const hub = new ProgressHub(runs.follow, limits);
    const subscriptions = Array.from({ length: 10 }, (_, i) => hub.open('run-a', `token-${i % 3}`, 0));
    const readers = subscriptions.map(reader);
    expect(runs.started).toEqual(['run-a']);

    runs.progress('run-a', 1);
    runs.progress('run-a', 2);
    runs.result('run-a');
    for (const next of readers) {
      expect(await next()).toEqual(progressOf(1));
      expect(await next()).toEqual(progressOf(2));
      expect(await next()).toEqual({ type: 'result', result: { done: true } });
      expect(await next()).toBeUndefined();
    }
    expect(hub.watchedRuns).toBe(0);
    expect(runs.started).toEqual(['run-a']);
    for (const token of ['token-0', 'token-1', 'token-2']) expect(hub.streamsOf(token)).toBe(0);
  });

  it('resumes each stream after its own Last-Event-ID from the changes the watcher keeps', async () => {
    const runs = new FakeRuns();
    const hub = new ProgressHub(runs.follow, limits);
    const first = reader(hub.open('run-b', 'token', 0));
    runs.progress('run-b', 1);
    runs.progress('run-b', 2);
    runs.progress('run-b', 3);
    expect(await first()).toEqual(progressOf(1));
    expect(await first()).toEqual(progressOf(2));
    expect(await first()).toEqual(progressOf(3));

    const resumed = reader(hub.open('run-b', 'token', 2));
    expect(await resumed()).toEqual(progressOf(3));
    const fresh = reader(hub.open('run-b', 'token', 0));
    expect(await fresh()).toEqual(progressOf(1));
    runs.progress('run-b', 4);
    expect(await resumed()).toEqual(progressOf(4));
    expect(await first()).toEqual(progressOf(4));
    expect(runs.started).toEqual(['run-b']);
  });

  it('marks a change as skipped when versions between the stream\u2019s last and it are not kept', async () => {
    const runs = new FakeRuns();
    const hub = new ProgressHub(runs.follow, limits);
    const next = reader(hub.open('run-c', 'token', 1));
    runs.progress('run-c', 6);
    runs.progress('run-c', 7);
    runs.progress('run-c', 9);
    expect(await next()).toEqual(progressOf(6, true));
    expect(await next()).toEqual(progressOf(7));
    expect(await next()).toEqual(progressOf(9, true));
  });

  it('refuses a stream beyond the cap per run with 429, and takes one again once a stream closes', () => {
    const runs = new FakeRuns();
    const hub = new ProgressHub(runs.follow, { perRun: 3, perToken: 100 });
    const open = Array.from({ length: 3 }, (_, i) => hub.open('run-d', `token-${i}`, 0));
    const refused = refusal(() => hub.open('run-d', 'token-other', 0));
    expect(refused.statusCode).toBe(429);
    expect(refused.message).toMatch(/at most 3/);
    // Other runs are not affected.
    hub.open('run-e', 'token-0', 0).close();
    open[0]!.close();
    expect(() => hub.open('run-d', 'token-other', 0)).not.toThrow();
  });

  it('refuses a stream beyond the cap per token with 429, over all runs; other tokens go on', () => {
    const runs = new FakeRuns();
    const hub = new ProgressHub(runs.follow, { perRun: 100, perToken: 2 });
    const a = hub.open('run-f', 'token', 0);
    hub.open('run-g', 'token', 0);
    const refused = refusal(() => hub.open('run-h', 'token', 0));
    expect(refused.statusCode).toBe(429);
    expect(refused.message).toMatch(/with this token: at most 2/);
    expect(() => hub.open('run-h', 'another-token', 0)).not.toThrow();
    a.close();
    a.close(); // closing twice frees one place only
    expect(hub.streamsOf('token')).toBe(1);
    expect(() => hub.open('run-h', 'token', 0)).not.toThrow();
    expect(() => hub.open('run-h', 'token', 0)).toThrow(ApiError);
  });

  it('stops following a run when its last stream closes, and follows it anew for the next', async () => {
    const runs = new FakeRuns();
    const hub = new ProgressHub(runs.follow, limits);
    const one = hub.open('run-i', 'token', 0);
    const two = hub.open('run-i', 'token', 0);
    const signal = runs.signal('run-i');
    one.close();
    expect(signal.aborted).toBe(false);
    two.close();
    expect(signal.aborted).toBe(true);
    expect(hub.watchedRuns).toBe(0);
    expect(hub.streamsOf('token')).toBe(0);

    const again = reader(hub.open('run-i', 'token', 0));
    expect(runs.started).toEqual(['run-i', 'run-i']);
    runs.progress('run-i', 1);
    expect(await again()).toEqual(progressOf(1));
  });

  it('ends a stream that is closed while it waits, and frees its place', async () => {
    const runs = new FakeRuns();
    const hub = new ProgressHub(runs.follow, limits);
    const subscription = hub.open('run-j', 'token', 0);
    const next = reader(subscription);
    const waiting = next();
    subscription.close();
    expect(await waiting).toBeUndefined();
    expect(hub.streamsOf('token')).toBe(0);
    expect(hub.watchedRuns).toBe(0);
  });

  it('fails every stream of a run whose following fails, and follows it anew for the next stream', async () => {
    const runs = new FakeRuns();
    const hub = new ProgressHub(runs.follow, limits);
    const a = reader(hub.open('run-k', 'token', 0));
    const b = reader(hub.open('run-k', 'token', 0));
    runs.fail('run-k');
    await expect(a()).rejects.toThrow('connection lost');
    await expect(b()).rejects.toThrow('connection lost');
    expect(hub.watchedRuns).toBe(0);
    expect(hub.streamsOf('token')).toBe(0);
    hub.open('run-k', 'token', 0);
    expect(runs.started).toEqual(['run-k', 'run-k']);
  });

  it('ends every stream when the hub closes', async () => {
    const runs = new FakeRuns();
    const hub = new ProgressHub(runs.follow, limits);
    const next = reader(hub.open('run-l', 'token', 0));
    const waiting = next();
    hub.close();
    expect(await waiting).toBeUndefined();
    expect(runs.signal('run-l').aborted).toBe(true);
  });
});

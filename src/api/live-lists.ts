import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProgressStreamEvent } from '@avatar-pipeline/client/client/progress-stream';
import { pipeSubscription } from './event-stream';
import { ProgressHub, type EventStreamLimits } from './progress-hub';

/** How often a watched list is read from Temporal's visibility store, however many streams follow it. */
export const LIST_POLL_INTERVAL_MS = 2_000;

/** The name of a list stream's events: each carries the whole list, as the list's GET answers it. */
export const LIST_EVENT = 'list';

/** How a list route describes its stream, for the OpenAPI document. */
export const LIVE_LIST_DESCRIPTION = [
  'Asked with `Accept: text/event-stream`, the answer is a stream of Server-Sent Events instead: a `list` event',
  '(data: the first page, as the JSON answer holds it, without `cursor`) at once and at every change, read from',
  `Temporal\u2019s visibility store every ${LIST_POLL_INTERVAL_MS / 1000} s for all the streams of the same list.`,
  'The stream stays open until the client closes it; a reconnect gets the current list (no Last-Event-ID needed).',
  'Streams open at once are limited per list and per token (429 beyond), as event streams of runs are.',
].join(' ');

/** Streams one list to one client, from the list's latest answer on, until the client goes. */
export type ListStreamer<Q> = (request: FastifyRequest, reply: FastifyReply, query: Q) => Promise<void>;

type ListReader = (query: unknown) => Promise<unknown>;

/**
 * Live lists: GET /v1/pipelines and GET /v1/campaigns asked for `text/event-stream`. One watcher
 * per list and query (the query holds the tenant) reads the list every interval for all of its
 * streams and hands on each answer that differs from the one before, whole. A stream starts with
 * the latest answer, so a client that reconnects gets a fresh snapshot; nothing is replayed. The
 * run streams' hub (progress-hub.ts) fans the answers out and caps the streams per list and per
 * token (429 beyond), with the run streams' limits.
 */
export class LiveLists {
  private readonly readers = new Map<string, ListReader>();
  private readonly hub: ProgressHub;

  constructor(
    limits: EventStreamLimits,
    private readonly intervalMs = LIST_POLL_INTERVAL_MS,
  ) {
    this.hub = new ProgressHub((key, signal) => this.follow(key, signal), limits, {
      keep: 1,
      nameOf: () => 'this list',
    });
  }

  /** Names a list and how to read it for a query (plain JSON); answers what streams it. */
  define<Q>(name: string, read: (query: Q) => Promise<unknown>): ListStreamer<Q> {
    this.readers.set(name, read as ListReader);
    return async (request, reply, query) => {
      const key = `${name}\n${JSON.stringify(query)}`;
      const subscription = this.hub.open<unknown, never>(key, request.credentialKey, 0);
      await pipeSubscription(request, reply, subscription, async (event) => ({
        event: LIST_EVENT,
        data: event.type === 'progress' ? event.progress : undefined,
      }));
    };
  }

  /** Ends every stream (the API is closing). */
  close(): void {
    this.hub.close();
  }

  private async *follow(
    key: string,
    signal: AbortSignal,
  ): AsyncGenerator<ProgressStreamEvent<unknown, never>> {
    const split = key.indexOf('\n');
    const read = this.readers.get(key.slice(0, split));
    if (read === undefined) throw new Error(`No list named ${key.slice(0, split)}`);
    const query: unknown = JSON.parse(key.slice(split + 1));
    let version = 0;
    let last = '';
    while (!signal.aborted) {
      try {
        const list = await read(query);
        const text = JSON.stringify(list);
        if (text !== last) {
          last = text;
          version += 1;
          yield { type: 'progress', version, progress: list, skipped: false };
        }
      } catch {
        // Temporal out of reach for a moment: the streams keep the last list, read again next time.
      }
      await delay(this.intervalMs, undefined, { signal }).catch(() => undefined);
    }
  }
}

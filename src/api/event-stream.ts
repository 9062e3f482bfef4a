import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from './api-error';

/** The id of a stream's last event: a reconnect naming it is answered 204, which tells EventSource to stop. */
export const END_EVENT_ID = 'end';

/** How often a comment line keeps idle connections (and proxies) from timing out. */
const KEEP_ALIVE_MS = 15_000;

export const lastEventIdSchema = z
  .string()
  .regex(/^(\d{1,15}|end)$/, 'must be the id of an event of this stream (a version number, or "end")')
  .optional()
  .describe('The id of the last event received: the stream resumes right after it');

/** Where a reconnecting client left off: 0 for a new stream, 'end' once it saw the outcome. */
export function resumePoint(request: FastifyRequest): number | typeof END_EVENT_ID {
  const header = request.headers['last-event-id'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') return 0;
  const parsed = lastEventIdSchema.safeParse(value);
  if (!parsed.success || parsed.data === undefined) {
    throw ApiError.invalid([
      { path: 'headers.last-event-id', message: parsed.error?.issues[0]?.message ?? '' },
    ]);
  }
  return parsed.data === END_EVENT_ID ? END_EVENT_ID : Number(parsed.data);
}

export interface EventStream {
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  send(event: ServerSentEvent): void;
  end(): void;
}

export interface ServerSentEvent {
  id?: string;
  event: string;
  data: unknown;
}

/**
 * Takes the reply over for a text/event-stream answer; `stop` aborts when the client goes away.
 * Fastify's own serialization is bypassed from here on, so each event is written as one block.
 */
export function openEventStream(request: FastifyRequest, reply: FastifyReply): EventStream {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.write('retry: 2000\n\n');
  const stop = new AbortController();
  const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  request.raw.on('close', () => stop.abort());
  raw.on('close', () => stop.abort());
  return {
    signal: stop.signal,
    send(event: ServerSentEvent): void {
      if (stop.signal.aborted) return;
      const lines = [`event: ${event.event}`];
      if (event.id !== undefined) lines.push(`id: ${event.id}`);
      lines.push(`data: ${JSON.stringify(event.data)}`);
      raw.write(`${lines.join('\n')}\n\n`);
    },
    end(): void {
      clearInterval(keepAlive);
      if (!raw.writableEnded) raw.end();
    },
  };
}

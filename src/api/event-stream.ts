import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError, errorBodySchema } from './api-error';
import type { ProgressStreamEvent } from '@avatar-pipeline/client/client/progress-stream';
import type { ProgressHub, ProgressSubscription } from './progress-hub';

/** The id of a stream's last event: a reconnect naming it is answered 204, which tells EventSource to stop. */
export const END_EVENT_ID = 'end';

/** How often a comment line keeps idle connections (and proxies) from timing out. */
const KEEP_ALIVE_MS = 15_000;

export const lastEventIdSchema = z
  .string()
  .regex(/^(\d{1,15}|end)$/, 'must be the id of an event of this stream (a version number, or "end")')
  .optional()
  .describe('The id of the last event received: the stream resumes right after it');

/** Whether a GET asks for Server-Sent Events (a live list) rather than one JSON answer (a HEAD never streams). */
export function wantsEventStream(request: FastifyRequest): boolean {
  return request.method === 'GET' && (request.headers.accept ?? '').includes('text/event-stream');
}

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

/**
 * What each event's `data` holds, by event name, for a run whose progress has `progress`'s shape
 * and whose last event carries `result`; documented as the stream's schema.
 */
export function progressEventSchema(
  id: string,
  progress: z.ZodType,
  result: z.ZodType,
  ofWhat: string,
): z.ZodType {
  return z
    .union([
      z
        .object({ version: z.number(), skipped: z.boolean(), progress })
        .describe('event: progress, id: the version'),
      result.describe('event: result, id: end (the last event)'),
      z
        .object({ message: z.string(), type: z.string().optional() })
        .describe(
          `event: error, id: end (the last event): the ${ofWhat} failed, was cancelled or ended otherwise`,
        ),
    ])
    .meta({ id });
}

/** The route description shared by the event streams. */
export function progressEventsDescription(ofWhat: string, last: string): string {
  return [
    `A text/event-stream: one \`progress\` event per change of the ${ofWhat}\u2019s progress (id: its version,`,
    `data: the whole progress), then \`result\` (${last}) or \`error\` as the last event (id: \`end\`), then the stream ends.`,
    'A reconnect with `Last-Event-ID` resumes right after that event; after `end` it is answered 204.',
    `The ${ofWhat} keeps its latest 200 snapshots: a client further behind gets the oldest kept one with \`skipped: true\`.`,
    `Watching writes nothing to the ${ofWhat}\u2019s workflow history. Streams open at once are limited per ${ofWhat} and per token (429 beyond).`,
  ].join(' ');
}

/** What an event stream route answers, for its OpenAPI description (pipelines and campaigns alike). */
export function progressEventsResponses<E extends z.ZodType>(ofWhat: string, events: E) {
  return {
    200: events.describe('The event stream'),
    204: z.null().describe('The client already received the last event'),
    401: errorBodySchema.describe('Missing or wrong bearer token'),
    404: errorBodySchema.describe(`No ${ofWhat} with this id`),
    422: errorBodySchema.describe('Last-Event-ID is not an id of this stream'),
    429: errorBodySchema.describe(
      `Too many requests, or too many event streams open at once on this ${ofWhat} (API_EVENT_STREAMS_PER_RUN) or with this token (API_EVENT_STREAMS_PER_TOKEN)`,
    ),
  };
}

export interface ProgressEventsOptions<P, R> {
  /** The last version the client saw (resumePoint), 0 for all. */
  afterVersion: number;
  /** The last event's data when the run succeeded; its result as it is when absent. */
  presentResult?: (result: R) => Promise<unknown>;
  /** Each progress event's data; the snapshot as the run kept it when absent. */
  presentProgress?: (progress: P) => Promise<P>;
}

/**
 * Streams a run's progress as Server-Sent Events, from the API's one watcher of that run
 * (progress-hub.ts): each change as `progress` (id: its version), then `result` or `error`
 * (id: end), then the end of the stream. The caller has checked the run exists and that the
 * client has not already seen `end`. A run or token with as many streams open as allowed is
 * answered 429 before the stream opens.
 */
export async function streamProgressEvents<P, R>(
  request: FastifyRequest,
  reply: FastifyReply,
  hub: ProgressHub,
  workflowId: string,
  options: ProgressEventsOptions<P, R>,
): Promise<void> {
  const subscription = hub.open<P, R>(workflowId, request.credentialKey, options.afterVersion);
  await pipeSubscription(request, reply, subscription, async (event) => {
    if (event.type === 'progress') {
      const { version, skipped } = event;
      const progress = options.presentProgress
        ? await options.presentProgress(event.progress)
        : event.progress;
      return { id: String(version), event: 'progress', data: { version, skipped, progress } };
    }
    if (event.type === 'result') {
      const data = options.presentResult ? await options.presentResult(event.result) : event.result;
      return { id: END_EVENT_ID, event: 'result', data };
    }
    return { id: END_EVENT_ID, event: 'error', data: event.error };
  });
}

/**
 * Writes a hub subscription's events as Server-Sent Events (each as `present` makes it) until it
 * ends or the client goes; the subscription is opened by the caller, so a 429 is answered before
 * the stream opens.
 */
export async function pipeSubscription<P, R>(
  request: FastifyRequest,
  reply: FastifyReply,
  subscription: ProgressSubscription<P, R>,
  present: (event: ProgressStreamEvent<P, R>) => Promise<ServerSentEvent>,
): Promise<void> {
  const stream = openEventStream(request, reply);
  if (stream.signal.aborted) subscription.close();
  else stream.signal.addEventListener('abort', () => subscription.close(), { once: true });
  try {
    for await (const event of subscription) stream.send(await present(event));
  } catch (err) {
    // Not the run's error: the client may reconnect with its Last-Event-ID and lose nothing.
    request.log.error({ err }, 'event stream failed');
    stream.send({ event: 'stream-error', data: { message: 'The stream failed; reconnect to resume' } });
  } finally {
    subscription.close();
    stream.end();
  }
}

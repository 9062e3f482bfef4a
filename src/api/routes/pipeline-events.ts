import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { followProgress } from '../../client/progress-stream';
import type { PipelineProgress, PipelineResult } from '../../contracts/pipeline-state';
import { errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { END_EVENT_ID, lastEventIdSchema, openEventStream, resumePoint } from '../event-stream';
import { BEARER_SCHEME } from '../openapi';
import { describePipeline } from '../pipeline-view';
import { pipelineIdParamsSchema, pipelineProgressSchema, pipelineResultSchema } from '../response-schemas';

/** Least time between two waits on the run: changes in between arrive together, none is lost. */
const MIN_WAIT_INTERVAL_MS = 250;

/** What each event's `data` holds, by event name; documented as the stream's schema. */
export const pipelineStreamEventSchema = z
  .union([
    z
      .object({ version: z.number(), skipped: z.boolean(), progress: pipelineProgressSchema })
      .describe('event: progress, id: the version'),
    pipelineResultSchema.describe('event: result, id: end (the last event)'),
    z
      .object({ message: z.string(), type: z.string().optional() })
      .describe(
        'event: error, id: end (the last event): the pipeline failed, was cancelled or ended otherwise',
      ),
  ])
  .meta({ id: 'PipelineStreamEvent' });

export function registerPipelineEventsRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/pipelines/:id/events',
    schema: {
      summary: 'Live progress of a pipeline (Server-Sent Events)',
      description: [
        'A text/event-stream: one `progress` event per change of the pipeline\u2019s progress (id: its version,',
        'data: the whole progress), then `result` or `error` as the last event (id: `end`), then the stream ends.',
        'A reconnect with `Last-Event-ID` resumes right after that event; after `end` it is answered 204.',
        'The pipeline keeps its latest 200 snapshots: a client further behind gets the oldest kept one with `skipped: true`.',
      ].join(' '),
      tags: ['pipelines'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: pipelineIdParamsSchema,
      headers: z.looseObject({ 'last-event-id': lastEventIdSchema }),
      response: {
        200: pipelineStreamEventSchema.describe('The event stream'),
        204: z.null().describe('The client already received the last event'),
        401: errorBodySchema.describe('Missing or wrong bearer token'),
        404: errorBodySchema.describe('No pipeline with this id'),
        422: errorBodySchema.describe('Last-Event-ID is not an id of this stream'),
      },
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const after = resumePoint(request);
      await describePipeline(ctx.client, id);
      if (after === END_EVENT_ID) return reply.code(204).send(null);
      const stream = openEventStream(request, reply);
      try {
        for await (const event of followProgress<PipelineProgress, PipelineResult>(ctx.client, id, {
          afterVersion: after,
          signal: stream.signal,
          minIntervalMs: MIN_WAIT_INTERVAL_MS,
        })) {
          if (event.type === 'progress') {
            const { version, skipped, progress } = event;
            stream.send({ id: String(version), event: 'progress', data: { version, skipped, progress } });
          } else {
            stream.send({
              id: END_EVENT_ID,
              event: event.type,
              data: event.type === 'result' ? event.result : event.error,
            });
          }
        }
      } catch (err) {
        // Not the pipeline's error: the client may reconnect with its Last-Event-ID and lose nothing.
        request.log.error({ err }, 'event stream failed');
        stream.send({ event: 'stream-error', data: { message: 'The stream failed; reconnect to resume' } });
      } finally {
        stream.end();
      }
    },
  });
}

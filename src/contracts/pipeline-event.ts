/**
 * The event a pipeline announces at its end, POSTed as JSON to the request's `callbackUrl`.
 * Plain types only: this module is imported by workflow code.
 */
import type { PipelineResult } from './pipeline-state';

interface EventBase {
  /** Unique per pipeline and outcome: receivers use it to drop repeated deliveries. */
  eventId: string;
  workflowId: string;
  subjectId?: string;
  /** When the pipeline ended (workflow time, ISO 8601). */
  occurredAt: string;
}

export type PipelineEvent =
  | (EventBase & { type: 'pipeline.completed'; result: PipelineResult })
  | (EventBase & { type: 'pipeline.failed'; error: { message: string; type?: string } })
  | (EventBase & { type: 'pipeline.cancelled' });

export type PipelineEventType = PipelineEvent['type'];

/** Input of the callback delivery workflow and activity: where to send which event. */
export interface CallbackDelivery {
  url: string;
  event: PipelineEvent;
}
